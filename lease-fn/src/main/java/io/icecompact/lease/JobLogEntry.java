package io.icecompact.lease;

import io.icecompact.core.job.JobResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One compaction job of one table, as the job log keeps it.
 *
 * @param table the Iceberg table identifier
 * @param jobId the job's id
 * @param startedAtMillis when the job started (epoch millis); orders the log
 * @param status how it ended ({@code COMMITTED}, {@code PARTIAL}, ... or a status of the pipeline's own)
 * @param counts named counts, e.g. {@code rewritten_data_files_count} (see {@link #of})
 * @param snapshotIds the snapshots the job committed, in commit order
 * @param durationMillis how long it ran
 * @param error what went wrong, or null
 */
public record JobLogEntry(
    String table,
    String jobId,
    long startedAtMillis,
    String status,
    Map<String, Long> counts,
    List<Long> snapshotIds,
    long durationMillis,
    String error) {

  public JobLogEntry {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(status, "status");
    if (startedAtMillis < 0) {
      throw new IllegalArgumentException("startedAtMillis must not be negative: " + startedAtMillis);
    }
    counts = counts == null ? Map.of() : Map.copyOf(counts);
    snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
  }

  /**
   * The entry for a job's result, with the result's counts under the names of its JSON form (Spark's
   * {@code rewrite_data_files} names) and its reason as the error unless it committed.
   */
  public static JobLogEntry of(JobResult result, long startedAtMillis) {
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
    boolean success = result.status().success();
    return new JobLogEntry(
        result.table(),
        result.jobId(),
        startedAtMillis,
        result.status().name(),
        counts,
        result.snapshotIds(),
        result.durationMillis(),
        success ? null : result.reason());
  }
}
