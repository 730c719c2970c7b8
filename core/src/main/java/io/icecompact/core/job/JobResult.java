package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.util.List;

/**
 * The result of a job. Counts use the names of Spark's {@code rewrite_data_files} result so that
 * dashboards built for Spark read it unchanged; they count only what the table's metadata confirms.
 *
 * <p>Snapshot ids are written as JSON strings: they are random 64-bit numbers, and a JSON number above
 * 2^53 is rounded by every reader that parses numbers as doubles (JavaScript, so the Step Functions
 * interpreter used in tests and any JavaScript consumer of the execution output). Both forms are read.
 */
public record JobResult(
    String jobId,
    String table,
    JobStatus status,
    String reason,
    @JsonFormat(shape = JsonFormat.Shape.STRING) List<Long> snapshotIds,
    int rewrittenDataFilesCount,
    int addedDataFilesCount,
    long rewrittenBytesCount,
    int failedDataFilesCount,
    int removedDeleteFilesCount,
    int rewrittenGroups,
    int failedGroups,
    int conflictedGroups,
    int skippedGroups,
    Verification verification,
    long durationMillis,
    List<GroupOutcome> groups) {

  /**
   * What was read back from the table after committing: the snapshot summaries' counts compared to
   * what the job meant to commit.
   */
  public record Verification(boolean verified, List<String> problems) {}
}
