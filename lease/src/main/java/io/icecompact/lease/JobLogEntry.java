package io.icecompact.lease;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.icecompact.core.job.JobResult;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One compaction job of one table, as the job log keeps it.
 *
 * @param table the Iceberg table identifier
 * @param jobId the job's id
 * @param startedAtMillis when the job started (epoch millis); orders the log
 * @param status how it ended ({@code COMMITTED}, {@code PARTIAL}, ... or a status of the pipeline's
 *     own)
 * @param counts named counts, e.g. {@code rewritten_data_files_count} (see {@link #of})
 * @param snapshotIds the snapshots the job committed, in commit order (JSON strings, as in {@link
 *     JobResult})
 * @param durationMillis how long it ran
 * @param error what went wrong, or null; for a failed execution the error's name, {@code ": "} and
 *     its message
 * @param executionArn the Step Functions execution that ran the job (the lease owner), or null
 *     (embedded)
 * @param resultLocation where the job's whole result (every group's outcome) is stored, or null
 * @param care the care steps that refused or failed after the job, each with why, or null when none
 *     did (or none ran): a job can commit and its care still refuse, which its status does not say
 */
public record JobLogEntry(
    String table,
    String jobId,
    long startedAtMillis,
    String status,
    Map<String, Long> counts,
    @JsonFormat(shape = JsonFormat.Shape.STRING) List<Long> snapshotIds,
    long durationMillis,
    String error,
    String executionArn,
    String resultLocation,
    String care) {

  /** The status of an execution that failed before it had a result. */
  public static final String FAILED = "FAILED";

  public JobLogEntry {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(status, "status");
    if (startedAtMillis < 0) {
      throw new IllegalArgumentException(
          "startedAtMillis must not be negative: " + startedAtMillis);
    }
    // by name, so that JSON and text list them in one order whatever their source
    counts = counts == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(counts));
    snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
  }

  /** A failed execution: no result, the error of the step that failed. */
  public static JobLogEntry failed(
      String table,
      String jobId,
      long startedAtMillis,
      long durationMillis,
      String error,
      String executionArn) {
    return new JobLogEntry(
        table,
        jobId,
        startedAtMillis,
        FAILED,
        Map.of(),
        List.of(),
        durationMillis,
        error,
        executionArn,
        null,
        null);
  }

  /** The same entry with {@code care}, what its care steps refused or failed (null: nothing). */
  public JobLogEntry withCare(String care) {
    return new JobLogEntry(
        table,
        jobId,
        startedAtMillis,
        status,
        counts,
        snapshotIds,
        durationMillis,
        error,
        executionArn,
        resultLocation,
        care);
  }

  /**
   * The entry for a job's result, with the result's counts under the names of its JSON form
   * (Spark's {@code rewrite_data_files} names) and its reason as the error unless it committed. The
   * duration is the caller's: the whole job's, which a result measured in one stage may not be.
   */
  /** The count a conversion's entry has and a rewrite's has not. */
  public static final String CONVERTED_EQUALITY_DELETE_FILES =
      "converted_equality_delete_files_count";

  public static JobLogEntry of(
      JobResult result, long startedAtMillis, long durationMillis, String executionArn) {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("rewritten_data_files_count", (long) result.rewrittenDataFilesCount());
    counts.put("added_data_files_count", (long) result.addedDataFilesCount());
    counts.put("rewritten_bytes_count", result.rewrittenBytesCount());
    counts.put("failed_data_files_count", (long) result.failedDataFilesCount());
    counts.put("removed_delete_files_count", (long) result.removedDeleteFilesCount());
    counts.put("rewritten_groups", (long) result.rewrittenGroups());
    counts.put("failed_groups", (long) result.failedGroups());
    counts.put("conflicted_groups", (long) result.conflictedGroups());
    counts.put("skipped_groups", (long) result.skippedGroups());
    if (result.conversion() != null) {
      // a convert-equality-deletes job: its groups were converted, not rewritten
      counts.put(
          CONVERTED_EQUALITY_DELETE_FILES,
          (long) result.conversion().convertedEqualityDeleteFilesCount());
      counts.put(
          "added_position_delete_files_count",
          (long) result.conversion().addedPositionDeleteFilesCount());
    }
    boolean success = result.status().success();
    return new JobLogEntry(
        result.table(),
        result.jobId(),
        startedAtMillis,
        result.status().name(),
        counts,
        result.snapshotIds(),
        durationMillis,
        success ? null : result.reason(),
        executionArn,
        result.resultLocation(),
        null);
  }
}
