package io.icecompact.committer;

import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.options.RewriteOptions;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * The job's result from a finished run: the status and its reason from how the groups ended, the
 * counts from the committed snapshots' summaries (what the table says, not the committer's own
 * bookkeeping).
 */
final class JobResultReport {
  private JobResultReport() {}

  static JobResult of(CommitRun run, long durationMillis) {
    JobPlan plan = run.plan();
    GroupLedger ledger = run.ledger();
    int rewrittenFiles = 0;
    int addedFiles = 0;
    int removedDeletes = 0;
    for (Snapshot snapshot : run.committedSnapshots()) {
      rewrittenFiles += (int) CommitVerifier.count(snapshot, SnapshotSummary.DELETED_FILES_PROP);
      addedFiles += (int) CommitVerifier.count(snapshot, SnapshotSummary.ADDED_FILES_PROP);
      removedDeletes +=
          (int) CommitVerifier.count(snapshot, SnapshotSummary.REMOVED_DELETE_FILES_PROP);
    }
    int groups = plan.groups().size();
    long rewritten = ledger.count(Status.REWRITTEN);
    long failed = ledger.count(Status.FAILED) + ledger.count(Status.NOT_COMMITTED);
    long conflicted = ledger.count(Status.CONFLICTED);
    long contended = ledger.count(Status.CONTENDED);
    JobStatus status;
    String reason;
    if (ledger.anyUnknown()) {
      status = JobStatus.UNKNOWN;
      reason =
          "A commit's outcome is unknown and it is not in the snapshot log yet; no file was deleted. "
              + "Re-run the committer for this job to resolve it. "
              + ledger.firstProblem();
    } else if (rewritten == 0 && ledger.count(Status.FAILED) == 0 && conflicted + contended > 0) {
      status = JobStatus.CONTENDED;
      reason =
          String.format(
              "No group was committed, none failed: %d conflicted with concurrent commits and %d"
                  + " lost the commit race to other writers; run the job again. First: %s",
              conflicted, contended, ledger.firstProblem());
    } else if (rewritten == 0) {
      status = JobStatus.FAILED;
      reason = "No group was committed; " + ledger.firstProblem();
    } else if (rewritten < groups) {
      status = JobStatus.PARTIAL;
      reason =
          String.format(
              "%d of %d groups rewritten, %d failed, %d conflicted, %d lost the commit race;"
                  + " first: %s",
              rewritten, groups, failed, conflicted, contended, ledger.firstProblem());
    } else {
      status = JobStatus.COMMITTED;
      reason =
          plan.skippedGroups() > 0
              ? String.format(
                  "%d more group(s) are left for the next run (%s)",
                  plan.skippedGroups(), RewriteOptions.MAX_GROUPS_PER_JOB)
              : null;
    }
    List<String> problems = List.copyOf(run.problems());
    return JobResult.builder(plan.jobId(), plan.table(), status)
        .reason(reason)
        .snapshotIds(run.committedSnapshots().stream().map(Snapshot::snapshotId).toList())
        .rewrittenDataFilesCount(rewrittenFiles)
        .addedDataFilesCount(addedFiles)
        .rewrittenBytesCount(ledger.inputBytes(Status.REWRITTEN))
        .failedDataFilesCount(
            ledger.inputFiles(
                Status.FAILED, Status.CONFLICTED, Status.CONTENDED, Status.NOT_COMMITTED))
        .removedDeleteFilesCount(removedDeletes)
        .rewrittenGroups((int) rewritten)
        .failedGroups((int) failed)
        .conflictedGroups((int) conflicted)
        .skippedGroups(plan.skippedGroups())
        .verification(new JobResult.Verification(problems.isEmpty(), problems))
        .durationMillis(durationMillis)
        .groups(ledger.outcomes())
        .commit(
            run.attempts().isEmpty()
                ? null
                : CommitAttempts.of(run.attempts(), run.prepareMillis()))
        .build();
  }
}
