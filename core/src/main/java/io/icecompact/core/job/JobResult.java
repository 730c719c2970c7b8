package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.icecompact.core.text.Abbreviated;
import java.util.List;

/**
 * The result of a job. Counts use the names of Spark's {@code rewrite_data_files} result so that
 * dashboards built for Spark read it unchanged; they count only what the table's metadata confirms.
 *
 * <p>Snapshot ids are written as JSON strings: they are random 64-bit numbers, and a JSON number above
 * 2^53 is rounded by every reader that parses numbers as doubles (JavaScript, so the Step Functions
 * interpreter used in tests and any JavaScript consumer of the execution output). Both forms are read.
 *
 * <p>The committer stores the whole result (every group's outcome) in the job's {@code result.json}; what
 * travels through Step Functions is its {@link #summary}, whose size does not grow with the job.
 *
 * @param groups every planned group's outcome; null (omitted) in a summary
 * @param resultLocation where the whole result is stored; set only in a summary
 * @param commit how the commit attempts went against the table's other writers; null when the job made none
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
    List<GroupOutcome> groups,
    String resultLocation,
    CommitAttempts commit) {

  /** Problems a summary lists; the rest are counted in {@link Verification#moreProblems}. */
  public static final int SUMMARY_PROBLEMS = 10;
  /** The longest reason a summary carries (a reason quotes one group's problem, which may be long). */
  public static final int SUMMARY_REASON_CHARS = 2000;

  /** A whole result, as the committer makes and stores it. */
  public JobResult(
      String jobId,
      String table,
      JobStatus status,
      String reason,
      List<Long> snapshotIds,
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
    this(jobId, table, status, reason, snapshotIds, rewrittenDataFilesCount, addedDataFilesCount,
        rewrittenBytesCount, failedDataFilesCount, removedDeleteFilesCount, rewrittenGroups, failedGroups,
        conflictedGroups, skippedGroups, verification, durationMillis, groups, null, null);
  }

  /** A result with no commit attempts to report. */
  public JobResult(
      String jobId,
      String table,
      JobStatus status,
      String reason,
      List<Long> snapshotIds,
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
      List<GroupOutcome> groups,
      String resultLocation) {
    this(jobId, table, status, reason, snapshotIds, rewrittenDataFilesCount, addedDataFilesCount,
        rewrittenBytesCount, failedDataFilesCount, removedDeleteFilesCount, rewrittenGroups, failedGroups,
        conflictedGroups, skippedGroups, verification, durationMillis, groups, resultLocation, null);
  }

  /** This result with {@code commit}'s figures. */
  public JobResult withCommit(CommitAttempts commit) {
    return new JobResult(jobId, table, status, reason, snapshotIds, rewrittenDataFilesCount, addedDataFilesCount,
        rewrittenBytesCount, failedDataFilesCount, removedDeleteFilesCount, rewrittenGroups, failedGroups,
        conflictedGroups, skippedGroups, verification, durationMillis, groups, resultLocation, commit);
  }

  /**
   * This result as Step Functions carries it (the output of {@code CommitSnapshot}, the job log, the
   * metrics): the same fields and counts, without the per-group outcomes, with at most
   * {@link #SUMMARY_PROBLEMS} verification problems and a reason of at most {@link #SUMMARY_REASON_CHARS}
   * characters, and {@code result_location} naming the stored whole result. Its size does not grow with
   * the number of groups or files (snapshot ids are bounded by {@code partial-progress.max-commits}).
   */
  public JobResult summary(String wholeResultLocation) {
    return new JobResult(jobId, table, status, Abbreviated.text(reason, SUMMARY_REASON_CHARS), snapshotIds,
        rewrittenDataFilesCount, addedDataFilesCount, rewrittenBytesCount, failedDataFilesCount,
        removedDeleteFilesCount, rewrittenGroups, failedGroups, conflictedGroups, skippedGroups,
        verification == null ? null : verification.firstProblems(SUMMARY_PROBLEMS), durationMillis, null,
        wholeResultLocation, commit == null ? null : commit.summary());
  }

  /**
   * What was read back from the table after committing: the snapshot summaries' counts compared to
   * what the job meant to commit.
   *
   * @param moreProblems in a summary, how many problems were left out of {@code problems}; otherwise null
   */
  public record Verification(boolean verified, List<String> problems, Integer moreProblems) {
    public Verification(boolean verified, List<String> problems) {
      this(verified, problems, null);
    }

    /** At most {@code shown} problems, with the count of the others (each cut to the summary's length). */
    Verification firstProblems(int shown) {
      if (problems == null) {
        return this;
      }
      List<String> first =
          problems.stream().limit(shown).map(p -> Abbreviated.text(p, SUMMARY_REASON_CHARS)).toList();
      return new Verification(verified, first, problems.size() > shown ? problems.size() - shown : null);
    }
  }
}
