package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.icecompact.core.text.Abbreviated;
import java.util.List;

/**
 * The result of a job. Counts use the names of Spark's {@code rewrite_data_files} result so that
 * dashboards built for Spark read it unchanged; they count only what the table's metadata confirms.
 *
 * <p>Snapshot ids are written as JSON strings: they are random 64-bit numbers, and a JSON number
 * above 2^53 is rounded by every reader that parses numbers as doubles (JavaScript, so the Step
 * Functions interpreter used in tests and any JavaScript consumer of the execution output). Both
 * forms are read.
 *
 * <p>The committer stores the whole result (every group's outcome) in the job's {@code
 * result.json}; what travels through Step Functions is its {@link #summary}, whose size does not
 * grow with the job.
 *
 * @param groups every planned group's outcome; null (omitted) in a summary
 * @param resultLocation where the whole result is stored; set only in a summary
 * @param commit how the commit attempts went against the table's other writers; null when the job
 *     made none
 * @param conversion what a {@code convert-equality-deletes} job converted and retired; null for a
 *     rewrite
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
    CommitAttempts commit,
    Conversion conversion) {

  /**
   * What a {@code convert-equality-deletes} job did, with the names of Iceberg's {@code
   * ConvertEqualityDeleteFiles.Result} for its two counts; read back from the committed snapshot.
   *
   * @param convertedEqualityDeleteFilesCount equality delete files removed from the table
   * @param addedPositionDeleteFilesCount position delete files and deletion vectors added
   * @param keptEqualityDeleteFilesCount equality delete files the job converted for some data files
   *     but kept, since they still apply to a data file it did not convert (outside its filter or a
   *     group that failed or conflicted); their new position deletes were not committed
   * @param convertedDataFilesCount data files whose equality deletes became position deletes
   * @param deletedPositionsCount rows the new position deletes delete
   * @param bytesReadCount bytes of data files the workers read (key columns only, where the
   *     metadata has their sizes)
   */
  public record Conversion(
      int convertedEqualityDeleteFilesCount,
      int addedPositionDeleteFilesCount,
      int keptEqualityDeleteFilesCount,
      int convertedDataFilesCount,
      long deletedPositionsCount,
      long bytesReadCount) {}

  /** Problems a summary lists; the rest are counted in {@link Verification#moreProblems}. */
  public static final int SUMMARY_PROBLEMS = 10;

  /**
   * The longest reason a summary carries (a reason quotes one group's problem, which may be long).
   */
  public static final int SUMMARY_REASON_CHARS = 2000;

  /**
   * A result to fill in; what is not set is empty (no snapshot, zero counts, no verification, no
   * groups). Counts are named as in the record.
   */
  public static Builder builder(String jobId, String table, JobStatus status) {
    return new Builder(jobId, table, status);
  }

  /**
   * The result of a job whose planner found nothing to rewrite: no snapshot, every count zero,
   * verified. Both runners return this one shape (the state machine's {@code NothingToDo} state
   * passes on what the planner made), so a reader of the job log or of {@code history} sees the
   * same fields either way.
   */
  public static JobResult nothingToDo(
      String jobId, String table, String reason, long durationMillis) {
    return builder(jobId, table, JobStatus.NOTHING_TO_DO)
        .reason(reason)
        .verification(new Verification(true, List.of()))
        .durationMillis(durationMillis)
        .groups(List.of())
        .build();
  }

  /** This result with {@code commit}'s figures. */
  public JobResult withCommit(CommitAttempts commit) {
    return toBuilder().commit(commit).build();
  }

  private Builder toBuilder() {
    return builder(jobId, table, status)
        .reason(reason)
        .snapshotIds(snapshotIds)
        .rewrittenDataFilesCount(rewrittenDataFilesCount)
        .addedDataFilesCount(addedDataFilesCount)
        .rewrittenBytesCount(rewrittenBytesCount)
        .failedDataFilesCount(failedDataFilesCount)
        .removedDeleteFilesCount(removedDeleteFilesCount)
        .rewrittenGroups(rewrittenGroups)
        .failedGroups(failedGroups)
        .conflictedGroups(conflictedGroups)
        .skippedGroups(skippedGroups)
        .verification(verification)
        .durationMillis(durationMillis)
        .groups(groups)
        .resultLocation(resultLocation)
        .commit(commit)
        .conversion(conversion);
  }

  /**
   * This result as Step Functions carries it (the output of {@code CommitSnapshot}, the job log,
   * the metrics): the same fields and counts, without the per-group outcomes, with at most {@link
   * #SUMMARY_PROBLEMS} verification problems and a reason of at most {@link #SUMMARY_REASON_CHARS}
   * characters, and {@code result_location} naming the stored whole result. Its size does not grow
   * with the number of groups or files (snapshot ids are bounded by {@code
   * partial-progress.max-commits}).
   */
  public JobResult summary(String wholeResultLocation) {
    return toBuilder()
        .reason(Abbreviated.text(reason, SUMMARY_REASON_CHARS))
        .verification(verification == null ? null : verification.firstProblems(SUMMARY_PROBLEMS))
        .groups(null)
        .resultLocation(wholeResultLocation)
        .commit(commit == null ? null : commit.summary())
        .build();
  }

  /** Builds a {@link JobResult} by name: eighteen positional arguments were easy to get wrong. */
  public static final class Builder {
    private final String jobId;
    private final String table;
    private final JobStatus status;
    private String reason;
    private List<Long> snapshotIds = List.of();
    private int rewrittenDataFilesCount;
    private int addedDataFilesCount;
    private long rewrittenBytesCount;
    private int failedDataFilesCount;
    private int removedDeleteFilesCount;
    private int rewrittenGroups;
    private int failedGroups;
    private int conflictedGroups;
    private int skippedGroups;
    private Verification verification;
    private long durationMillis;
    private List<GroupOutcome> groups;
    private String resultLocation;
    private CommitAttempts commit;
    private Conversion conversion;

    private Builder(String jobId, String table, JobStatus status) {
      this.jobId = jobId;
      this.table = table;
      this.status = status;
    }

    public Builder reason(String value) {
      reason = value;
      return this;
    }

    public Builder snapshotIds(List<Long> value) {
      snapshotIds = value;
      return this;
    }

    public Builder rewrittenDataFilesCount(int value) {
      rewrittenDataFilesCount = value;
      return this;
    }

    public Builder addedDataFilesCount(int value) {
      addedDataFilesCount = value;
      return this;
    }

    public Builder rewrittenBytesCount(long value) {
      rewrittenBytesCount = value;
      return this;
    }

    public Builder failedDataFilesCount(int value) {
      failedDataFilesCount = value;
      return this;
    }

    public Builder removedDeleteFilesCount(int value) {
      removedDeleteFilesCount = value;
      return this;
    }

    public Builder rewrittenGroups(int value) {
      rewrittenGroups = value;
      return this;
    }

    public Builder failedGroups(int value) {
      failedGroups = value;
      return this;
    }

    public Builder conflictedGroups(int value) {
      conflictedGroups = value;
      return this;
    }

    public Builder skippedGroups(int value) {
      skippedGroups = value;
      return this;
    }

    public Builder verification(Verification value) {
      verification = value;
      return this;
    }

    public Builder durationMillis(long value) {
      durationMillis = value;
      return this;
    }

    /** Every planned group's outcome; null in a summary. */
    public Builder groups(List<GroupOutcome> value) {
      groups = value;
      return this;
    }

    public Builder resultLocation(String value) {
      resultLocation = value;
      return this;
    }

    public Builder commit(CommitAttempts value) {
      commit = value;
      return this;
    }

    public Builder conversion(Conversion value) {
      conversion = value;
      return this;
    }

    public JobResult build() {
      return new JobResult(
          jobId,
          table,
          status,
          reason,
          snapshotIds,
          rewrittenDataFilesCount,
          addedDataFilesCount,
          rewrittenBytesCount,
          failedDataFilesCount,
          removedDeleteFilesCount,
          rewrittenGroups,
          failedGroups,
          conflictedGroups,
          skippedGroups,
          verification,
          durationMillis,
          groups,
          resultLocation,
          commit,
          conversion);
    }
  }

  /**
   * What was read back from the table after committing: the snapshot summaries' counts compared to
   * what the job meant to commit.
   *
   * @param moreProblems in a summary, how many problems were left out of {@code problems};
   *     otherwise null
   */
  public record Verification(boolean verified, List<String> problems, Integer moreProblems) {
    public Verification(boolean verified, List<String> problems) {
      this(verified, problems, null);
    }

    /**
     * At most {@code shown} problems, with the count of the others (each cut to the summary's
     * length).
     */
    Verification firstProblems(int shown) {
      if (problems == null) {
        return this;
      }
      List<String> first =
          problems.stream()
              .limit(shown)
              .map(p -> Abbreviated.text(p, SUMMARY_REASON_CHARS))
              .toList();
      return new Verification(
          verified, first, problems.size() > shown ? problems.size() - shown : null);
    }
  }
}
