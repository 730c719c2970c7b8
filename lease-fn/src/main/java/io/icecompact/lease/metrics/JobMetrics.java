package io.icecompact.lease.metrics;

import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.JobResult;
import java.util.Map;

/**
 * A finished job's figures as one CloudWatch Embedded Metric Format document (see {@link
 * EmfDocument}), printed by {@code ReleaseLease}; it carries the job id and status as log fields.
 */
public final class JobMetrics {
  public static final String NAMESPACE = EmfDocument.NAMESPACE;

  private JobMetrics() {}

  /** The EMF document for a finished job whose care (if any) all ran. */
  public static Map<String, Object> emf(JobResult result, long timestampMillis) {
    return emf(result, 0, 0, timestampMillis);
  }

  /**
   * The EMF document for a finished job; {@code timestampMillis} is when it was recorded. {@code
   * careRefused} and {@code careFailed}: its care steps that refused or failed (CareRefused,
   * CareFailed), which its status does not show.
   */
  public static Map<String, Object> emf(
      JobResult result, int careRefused, int careFailed, long timestampMillis) {
    String status = result.status().name();
    // Null when the job made no commit attempt.
    CommitAttempts commit = result.commit();
    return new EmfDocument(result.table())
        .field("job_id", result.jobId())
        .field("status", status)
        .count("RewrittenDataFiles", result.rewrittenDataFilesCount())
        .count("AddedDataFiles", result.addedDataFilesCount())
        .metric("RewrittenBytes", result.rewrittenBytesCount(), "Bytes")
        .count("FailedDataFiles", result.failedDataFilesCount())
        .count("RemovedDeleteFiles", result.removedDeleteFilesCount())
        .count("RewrittenGroups", result.rewrittenGroups())
        .count("FailedGroups", result.failedGroups())
        .count("ConflictedGroups", result.conflictedGroups())
        .count("SkippedGroups", result.skippedGroups())
        .metric("JobDuration", result.durationMillis(), "Milliseconds")
        .count("JobsCommitted", status.equals("COMMITTED") ? 1 : 0)
        .count("JobsPartial", status.equals("PARTIAL") ? 1 : 0)
        .count("JobsFailed", status.equals("FAILED") ? 1 : 0)
        .count("JobsUnknown", status.equals("UNKNOWN") ? 1 : 0)
        .count("JobsContended", status.equals("CONTENDED") ? 1 : 0)
        .count("CommitAttempts", commit == null ? 0 : commit.attempts())
        .count("LostCommitAttempts", commit == null ? 0 : commit.lost())
        .count("CareRefused", careRefused)
        .count("CareFailed", careFailed)
        .toMap(timestampMillis);
  }

  /**
   * The EMF document for an execution that failed before its job had a result (a planner or
   * committer Lambda that kept failing, a timeout): counted in {@code JobsFailed} like a FAILED
   * result, so that a dashboard or alarm on that metric sees every failed execution; the error's
   * name is a log field.
   */
  public static Map<String, Object> failedExecution(
      String table, String jobId, String error, long durationMillis, long timestampMillis) {
    return new EmfDocument(table)
        .field("job_id", jobId)
        .field("status", "FAILED")
        .field("error", error)
        .metric("JobDuration", durationMillis, "Milliseconds")
        .count("JobsCommitted", 0)
        .count("JobsPartial", 0)
        .count("JobsFailed", 1)
        .count("JobsUnknown", 0)
        .count("JobsContended", 0)
        .toMap(timestampMillis);
  }
}
