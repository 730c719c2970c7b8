package io.icecompact.committer;

import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * A conversion's result: each group's outcome, the job's status and reason from them, the counts
 * from the committed snapshot's summary (checked against what was committed: the table's word, not
 * the committer's).
 */
final class ConversionReport {
  private ConversionReport() {}

  static JobResult of(ConversionRun run, long durationMillis) {
    Snapshot committed = run.committed;
    EqualityDeleteRetirement retirement = run.retirement;
    int added = run.committedDeleteFileCount();
    long positions = 0;
    long bytesRead = 0;
    int dataFiles = 0;
    for (ConversionRun.Ready group : List.copyOf(run.ready.values())) {
      bytesRead += group.result().bytesRead();
      if (committed != null && !anyRetired(group, retirement)) {
        // its files' deletes all still apply elsewhere: nothing of it is in the snapshot
        run.holdBack(
            group.planned(),
            String.format(
                "not committed: every equality delete of its data files still applies to data"
                    + " files this job did not convert (snapshot %d holds none of its deletes)",
                committed.snapshotId()));
      } else if (committed != null) {
        run.outcomes.put(group.planned().index(), converted(group, retirement, committed));
        dataFiles += group.result().files().size();
        positions +=
            group.result().files().stream()
                .filter(retirement::commits)
                .mapToLong(ConvertedGroup.File::positions)
                .sum();
      }
    }
    if (committed != null) {
      run.problems.addAll(verify(committed, retirement, added));
    }
    List<GroupOutcome> groups = List.copyOf(run.outcomes.values());
    long converted = count(groups, Status.CONVERTED);
    long failed = count(groups, Status.FAILED);
    long notCommitted = count(groups, Status.NOT_COMMITTED) - run.heldBack.size();
    long conflicted = count(groups, Status.CONFLICTED);
    long contended = count(groups, Status.CONTENDED);
    String first =
        groups.stream().map(GroupOutcome::reason).filter(Objects::nonNull).findFirst().orElse("");
    JobStatus status;
    String reason;
    if (run.unknown) {
      status = JobStatus.UNKNOWN;
      reason =
          "The commit's outcome is unknown and it is not in the snapshot log yet; no file was"
              + " deleted. Re-run the committer for this job to resolve it. "
              + first;
    } else if (converted == 0 && failed == 0 && conflicted + contended > 0) {
      status = JobStatus.CONTENDED;
      reason = "No group was committed, none failed: " + first;
    } else if (converted == 0 && failed + notCommitted == 0) {
      status = JobStatus.NOTHING_TO_DO;
      reason = "Nothing converted: " + first;
    } else if (converted == 0) {
      status = JobStatus.FAILED;
      reason = "No group was committed; " + first;
    } else if (converted + run.heldBack.size() < run.plan.groups().size()) {
      status = JobStatus.PARTIAL;
      reason =
          String.format(
              "%d of %d groups converted, %d failed, %d conflicted, %d lost the commit race;"
                  + " first: %s",
              converted,
              run.plan.groups().size(),
              failed + notCommitted,
              conflicted,
              contended,
              first);
    } else {
      status = JobStatus.COMMITTED;
      reason =
          retirement.kept().isEmpty()
              ? null
              : String.format(
                  "%d equality delete files kept: they still apply to data files this job did not"
                      + " convert (%d groups held back)",
                  retirement.kept().size(), run.heldBack.size());
    }
    return JobResult.builder(run.plan.jobId(), run.plan.table(), status)
        .reason(reason)
        .snapshotIds(committed == null ? List.of() : List.of(committed.snapshotId()))
        .removedDeleteFilesCount(
            committed == null
                ? 0
                : (int) CommitVerifier.count(committed, SnapshotSummary.REMOVED_DELETE_FILES_PROP))
        .rewrittenGroups((int) converted)
        .failedGroups((int) (failed + notCommitted))
        .conflictedGroups((int) conflicted)
        .skippedGroups(run.plan.skippedGroups())
        .verification(new JobResult.Verification(run.problems.isEmpty(), List.copyOf(run.problems)))
        .durationMillis(durationMillis)
        .groups(groups)
        .commit(run.attempts.isEmpty() ? null : CommitAttempts.of(run.attempts, 0))
        .conversion(
            new JobResult.Conversion(
                committed == null ? 0 : retirement.retired().size(),
                committed == null ? 0 : added,
                committed == null
                    ? retirement.kept().size() + retirement.retired().size()
                    : retirement.kept().size(),
                dataFiles,
                positions,
                bytesRead))
        .build();
  }

  private static boolean anyRetired(
      ConversionRun.Ready group, EqualityDeleteRetirement retirement) {
    return group.result().files().stream()
        .flatMap(file -> file.equalityDeletes().stream())
        .anyMatch(retirement.retired()::contains);
  }

  private static GroupOutcome converted(
      ConversionRun.Ready group, EqualityDeleteRetirement retirement, Snapshot committed) {
    List<ConvertedGroup.File> files = group.result().files();
    long notFully = files.stream().filter(file -> !retirement.fullyConverted(file)).count();
    String reason =
        notFully == 0
            ? null
            : String.format(
                "%d of its %d data files keep equality deletes that still apply to data files this"
                    + " job did not convert",
                notFully, files.size());
    return new GroupOutcome(
        group.planned().index(),
        group.planned().partition(),
        Status.CONVERTED,
        reason,
        group.planned().inputFiles(),
        group.planned().inputBytes(),
        (int) files.stream().filter(retirement::commits).count(),
        files.stream().filter(retirement::commits).mapToLong(ConvertedGroup.File::positions).sum(),
        committed.snapshotId(),
        group.planned().expectedRewritePath(),
        group.planned().expectedRewritePathReason(),
        0);
  }

  /**
   * The committed snapshot's summary against what was committed. On v3 the merged DVs are removed
   * too, so the removed delete files are at least the retired ones.
   */
  private static List<String> verify(
      Snapshot committed, EqualityDeleteRetirement retirement, int added) {
    long addedDeletes = CommitVerifier.count(committed, SnapshotSummary.ADDED_DELETE_FILES_PROP);
    long removedDeletes =
        CommitVerifier.count(committed, SnapshotSummary.REMOVED_DELETE_FILES_PROP);
    long addedData = CommitVerifier.count(committed, SnapshotSummary.ADDED_FILES_PROP);
    long removedData = CommitVerifier.count(committed, SnapshotSummary.DELETED_FILES_PROP);
    List<String> problems = new java.util.ArrayList<>();
    if (addedDeletes != added) {
      problems.add(
          String.format(
              "snapshot %d added %d delete files, the job committed %d",
              committed.snapshotId(), addedDeletes, added));
    }
    if (removedDeletes < retirement.retired().size()) {
      problems.add(
          String.format(
              "snapshot %d removed %d delete files, fewer than the %d equality deletes retired",
              committed.snapshotId(), removedDeletes, retirement.retired().size()));
    }
    if (addedData != 0 || removedData != 0) {
      problems.add(
          String.format(
              "snapshot %d changed data files (%d added, %d removed); a conversion must not",
              committed.snapshotId(), addedData, removedData));
    }
    return problems;
  }

  private static long count(List<GroupOutcome> groups, Status status) {
    return groups.stream().filter(group -> group.status() == status).count();
  }
}
