package io.icecompact.committer;

import io.icecompact.core.error.ApplicationException;
import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer stage: checks the whole job, then commits its groups as one Iceberg {@code replace}
 * snapshot (or up to {@code partial-progress.max-commits} snapshots).
 *
 * <h2>Failure semantics</h2>
 *
 * <ul>
 *   <li>A broken invariant (a result that disagrees with the plan or storage, a pinned snapshot that
 *       is no longer an ancestor) fails the job before any commit; nothing is deleted.
 *   <li>A refused commit ({@code ValidationException}, or {@code CommitFailedException} after
 *       Iceberg's own retries) is attributed to groups by {@link ConflictDetector}: those groups are
 *       {@code CONFLICTED}, their outputs deleted, and the rest is committed again in the same single
 *       snapshot (unless {@code allow-partial=false}). A refusal no group explains fails the batch.
 *   <li>{@code CommitStateUnknownException}: the job's stamp is looked up in the snapshot log. Found:
 *       committed. Not found: the job ends {@code UNKNOWN} and deletes nothing, since the files may
 *       be live. Re-running the committer resolves it.
 *   <li>A re-run after a finished run returns the stored result; after a crash it finds the job's
 *       committed snapshots by their stamp and commits only what is left. No second snapshot.
 * </ul>
 *
 * <h2>Correctness properties</h2>
 *
 * Every commit validates from the pinned snapshot, so a concurrent position delete or rewrite of an
 * input file refuses it; rewritten files keep the pinned sequence number (unless
 * {@code use-starting-sequence-number=false}), so concurrent equality deletes still apply to them.
 * Counts in the result are read back from the committed snapshots' summaries.
 */
public final class JobCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(JobCommitter.class);
  /** Each refused commit that conflicts explain removes at least one group; this bounds the rounds. */
  private static final int MAX_CONFLICT_ROUNDS = 5;

  private final TableAccess access;
  private final CommitGuard guard;

  public JobCommitter(TableAccess access) {
    this(access, CommitGuard.NONE);
  }

  public JobCommitter(TableAccess access, CommitGuard guard) {
    this.access = access;
    this.guard = guard;
  }

  public JobResult commit(CommitRequest request) {
    long started = System.currentTimeMillis();
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = new WorkLocation(request.workLocation());
    JobPlan plan = store.readPlan(request.jobId(), request.planLocation(), request.planSha256());
    Optional<JobResult> stored = store.readDocument(work.jobResult(), JobResult.class);
    if (stored.isPresent() && stored.get().status() != JobStatus.UNKNOWN) {
      LOG.info("[{} {} committer] already finished as {}; returning the stored result",
          plan.table(), plan.jobId(), stored.get().status());
      return stored.get();
    }

    RewriteOptions options = RewriteOptions.parse(plan.options());
    Table table = access.loadTable(plan.table());
    try {
      return commit(request, plan, options, table, store, work, started);
    } catch (ApplicationException e) {
      // stopped before committing (a broken invariant, a table rolled back past the pinned snapshot):
      // the outputs will never be committed by this job
      new OutputCleanup(access.fileIO(), plan).deleteAllStored(table, store, work);
      throw e;
    }
  }

  private JobResult commit(
      CommitRequest request, JobPlan plan, RewriteOptions options, Table table, JobStore store,
      WorkLocation work, long started) {
    long pinnedId = plan.pinned().snapshotId();
    if (table.currentSnapshot() == null
        || !SnapshotUtil.isAncestorOf(table, table.currentSnapshot().snapshotId(), pinnedId)) {
      throw new JobInvariantViolationException(
          String.format(
              "Job %s not committed: pinned snapshot %d is no longer an ancestor of the current"
                  + " snapshot %s (the table was rolled back or replaced)",
              plan.jobId(), pinnedId,
              table.currentSnapshot() == null ? "none" : table.currentSnapshot().snapshotId()));
    }
    ResultValidator.Validated validated =
        new ResultValidator(plan, store, work, access.fileIO(), table.specs())
            .validate(request.failures());

    GroupLedger ledger = new GroupLedger(plan, validated.ready());
    validated.failed().forEach(ledger::failed);
    List<String> problems = new ArrayList<>();
    Map<Long, Snapshot> committed = new LinkedHashMap<>();
    int nextCommitIndex = recoverEarlierCommits(table, plan, store, work, validated, ledger, problems, committed);

    List<ReadyGroup> pending =
        validated.ready().values().stream()
            .filter(group -> !ledger.decided(group.index()))
            .sorted(Comparator.comparingInt(ReadyGroup::index))
            .toList();
    if (!options.allowPartial() && !validated.failed().isEmpty()) {
      String reason =
          String.format(
              "not committed: %s=false and %d group(s) failed",
              RewriteOptions.ALLOW_PARTIAL, validated.failed().size());
      pending.forEach(group -> ledger.notCommitted(group.index(), reason));
      pending = List.of();
    }

    boolean stopped = false;
    for (List<ReadyGroup> batch : batches(pending, options, committed.size())) {
      if (stopped) {
        batch.forEach(group -> ledger.notCommitted(group.index(), "not committed: an earlier commit of the job did not succeed"));
        continue;
      }
      BatchCommit attempt =
          new BatchCommit(table, plan, options, store, work, ledger, problems, committed);
      nextCommitIndex = attempt.run(batch, nextCommitIndex);
      stopped = attempt.stopJob;
    }
    if (!ledger.anyUnknown()) {
      // With an unknown commit, any output may be live: keep everything until a re-run decides.
      Map<Integer, List<String>> uncommitted = new java.util.TreeMap<>();
      validated.ready().values().stream()
          .filter(group -> !ledger.isRewritten(group.index()))
          .forEach(group -> uncommitted.put(
              group.index(), group.outputs().stream().map(DataFile::location).toList()));
      validated.failed().keySet()
          .forEach(index -> uncommitted.put(index, OutputCleanup.storedOutputs(store, work, index)));
      problems.addAll(new OutputCleanup(access.fileIO(), plan).delete(table, uncommitted));
    }
    JobResult result = result(plan, ledger, problems, committed, started);
    store.writeDocument(work.jobResult(), result);
    LOG.info("[{} {} committer] {}: {} groups rewritten in snapshots {}",
        plan.table(), plan.jobId(), result.status(), result.rewrittenGroups(), result.snapshotIds());
    return result;
  }

  /** Finds snapshots an earlier run of this job committed; returns the next free commit index. */
  private int recoverEarlierCommits(
      Table table, JobPlan plan, JobStore store, WorkLocation work,
      ResultValidator.Validated validated, GroupLedger ledger, List<String> problems,
      Map<Long, Snapshot> committed) {
    Map<Integer, Snapshot> earlier = SnapshotStamp.commitsOf(table, plan.jobId(), plan.pinned().snapshotId());
    int next = 0;
    for (Map.Entry<Integer, Snapshot> commit : earlier.entrySet()) {
      CommitIntent intent =
          store.readDocument(work.commitIntent(commit.getKey()), CommitIntent.class)
              .orElseThrow(() -> new PlanIntegrityException(
                  "Snapshot " + commit.getValue().snapshotId() + " carries this job's stamp but commit intent "
                      + work.commitIntent(commit.getKey()) + " is missing"));
      List<ReadyGroup> groups = intent.groupIndexes().stream().map(validated.ready()::get).toList();
      if (groups.contains(null)) {
        throw new PlanIntegrityException("Commit intent " + commit.getKey() + " names a group without a valid result");
      }
      groups.forEach(group -> ledger.rewritten(group.index(), commit.getValue().snapshotId()));
      problems.addAll(CommitVerifier.verify(table, commit.getValue(), BatchCommit.expected(groups)));
      committed.put(commit.getValue().snapshotId(), commit.getValue());
      next = Math.max(next, commit.getKey() + 1);
      LOG.info("[{} {} committer] found commit {} of an earlier run: snapshot {}",
          plan.table(), plan.jobId(), commit.getKey(), commit.getValue().snapshotId());
    }
    // An intent without a snapshot belongs to an attempt whose outcome was unknown: its index is
    // never reused, so a commit that lands late cannot be mistaken for another group list.
    while (store.readDocument(work.commitIntent(next), CommitIntent.class).isPresent()) {
      next++;
    }
    return next;
  }

  /**
   * Splits {@code groups} into at most the commits {@code partial-progress.max-commits} has left after
   * the {@code earlierCommits} an earlier run of the job made (always at least one).
   */
  private static List<List<ReadyGroup>> batches(
      List<ReadyGroup> groups, RewriteOptions options, int earlierCommits) {
    if (groups.isEmpty()) {
      return List.of();
    }
    int left = Math.max(1, options.partialProgressMaxCommits() - earlierCommits);
    int commits = options.partialProgressEnabled() ? Math.min(left, groups.size()) : 1;
    List<List<ReadyGroup>> batches = new ArrayList<>();
    int size = (groups.size() + commits - 1) / commits;
    for (int from = 0; from < groups.size(); from += size) {
      batches.add(groups.subList(from, Math.min(groups.size(), from + size)));
    }
    return batches;
  }

  private JobResult result(
      JobPlan plan, GroupLedger ledger, List<String> problems, Map<Long, Snapshot> committed, long started) {
    int rewrittenFiles = 0;
    int addedFiles = 0;
    int removedDeletes = 0;
    for (Snapshot snapshot : committed.values()) {
      rewrittenFiles += (int) CommitVerifier.count(snapshot, SnapshotSummary.DELETED_FILES_PROP);
      addedFiles += (int) CommitVerifier.count(snapshot, SnapshotSummary.ADDED_FILES_PROP);
      removedDeletes += (int) CommitVerifier.count(snapshot, SnapshotSummary.REMOVED_DELETE_FILES_PROP);
    }
    int groups = plan.groups().size();
    long rewritten = ledger.count(Status.REWRITTEN);
    long failed = ledger.count(Status.FAILED) + ledger.count(Status.NOT_COMMITTED);
    long conflicted = ledger.count(Status.CONFLICTED);
    JobStatus status;
    String reason;
    if (ledger.anyUnknown()) {
      status = JobStatus.UNKNOWN;
      reason = "A commit's outcome is unknown and it is not in the snapshot log yet; no file was deleted. "
          + "Re-run the committer for this job to resolve it. " + ledger.firstProblem();
    } else if (rewritten == 0) {
      status = JobStatus.FAILED;
      reason = "No group was committed; " + ledger.firstProblem();
    } else if (rewritten < groups) {
      status = JobStatus.PARTIAL;
      reason = String.format("%d of %d groups rewritten, %d failed, %d conflicted; first: %s",
          rewritten, groups, failed, conflicted, ledger.firstProblem());
    } else {
      status = JobStatus.COMMITTED;
      reason = plan.skippedGroups() > 0
          ? String.format("%d more group(s) are left for the next run (%s)", plan.skippedGroups(), RewriteOptions.MAX_GROUPS_PER_JOB)
          : null;
    }
    return new JobResult(
        plan.jobId(),
        plan.table(),
        status,
        reason,
        committed.values().stream().map(Snapshot::snapshotId).toList(),
        rewrittenFiles,
        addedFiles,
        ledger.inputBytes(Status.REWRITTEN),
        ledger.inputFiles(Status.FAILED, Status.CONFLICTED, Status.NOT_COMMITTED),
        removedDeletes,
        (int) rewritten,
        (int) failed,
        (int) conflicted,
        plan.skippedGroups(),
        new JobResult.Verification(problems.isEmpty(), List.copyOf(problems)),
        System.currentTimeMillis() - started,
        ledger.outcomes());
  }

  /** One snapshot's worth of groups, committed with conflict handling. */
  private final class BatchCommit {
    private final Table table;
    private final JobPlan plan;
    private final RewriteOptions options;
    private final JobStore store;
    private final WorkLocation work;
    private final GroupLedger ledger;
    private final List<String> problems;
    private final Map<Long, Snapshot> committed;
    private boolean stopJob;

    BatchCommit(Table table, JobPlan plan, RewriteOptions options, JobStore store, WorkLocation work,
        GroupLedger ledger, List<String> problems, Map<Long, Snapshot> committed) {
      this.table = table;
      this.plan = plan;
      this.options = options;
      this.store = store;
      this.work = work;
      this.ledger = ledger;
      this.problems = problems;
      this.committed = committed;
    }

    /** Commits {@code batch}; returns the next free commit index. */
    int run(List<ReadyGroup> batch, int commitIndex) {
      List<ReadyGroup> remaining = new ArrayList<>(batch);
      for (int round = 1; !remaining.isEmpty(); round++) {
        store.writeDocument(work.commitIntent(commitIndex),
            new CommitIntent(plan.jobId(), commitIndex, remaining.stream().map(ReadyGroup::index).toList()));
        try {
          commitOnce(remaining, commitIndex);
          recordCommitted(remaining, commitIndex);
          return commitIndex + 1;
        } catch (CommitStateUnknownException e) {
          table.refresh();
          if (SnapshotStamp.commitsOf(table, plan.jobId(), plan.pinned().snapshotId()).containsKey(commitIndex)) {
            recordCommitted(remaining, commitIndex);
            return commitIndex + 1;
          }
          remaining.forEach(group -> ledger.unknown(group.index(), e.getMessage()));
          stopJob = true;
          return commitIndex + 1;
        } catch (ValidationException | CommitFailedException e) {
          table.refresh();
          Map<Integer, String> conflicts =
              ConflictDetector.detect(table, plan, remaining, options.useStartingSequenceNumber());
          LOG.warn("[{} {} committer] commit {} refused ({}); conflicting groups: {}",
              plan.table(), plan.jobId(), commitIndex, e.getMessage(), conflicts.keySet());
          if (conflicts.isEmpty() || round >= MAX_CONFLICT_ROUNDS) {
            String reason = "commit refused: " + e.getClass().getSimpleName() + ": " + e.getMessage();
            remaining.forEach(group -> ledger.failed(group.index(), reason));
            stopJob = !options.allowPartial();
            return commitIndex;
          }
          List<ReadyGroup> dropped = remaining.stream().filter(g -> conflicts.containsKey(g.index())).toList();
          dropped.forEach(group -> ledger.conflicted(group.index(), conflicts.get(group.index())));
          remaining.removeAll(dropped);
          if (!options.allowPartial() && !remaining.isEmpty()) {
            String reason = String.format("not committed: %s=false and group %d conflicted",
                RewriteOptions.ALLOW_PARTIAL, dropped.get(0).index());
            remaining.forEach(group -> ledger.notCommitted(group.index(), reason));
            stopJob = true;
            return commitIndex;
          }
        }
      }
      return commitIndex;
    }

    private void commitOnce(List<ReadyGroup> groups, int commitIndex) {
      RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(plan.pinned().snapshotId());
      if (options.useStartingSequenceNumber()) {
        rewrite.dataSequenceNumber(plan.pinned().sequenceNumber());
      }
      for (ReadyGroup group : groups) {
        group.tasks().forEach(task -> rewrite.deleteFile(task.file()));
        removableDeletes(List.of(group)).values().forEach(rewrite::deleteFile);
        group.outputs().forEach(rewrite::addFile);
      }
      rewrite.set(SnapshotStamp.JOB_ID, plan.jobId());
      rewrite.set(SnapshotStamp.COMMIT_INDEX, Integer.toString(commitIndex));
      rewrite.set(SnapshotStamp.GROUPS, Integer.toString(groups.size()));
      guard.check();
      rewrite.commit();
    }

    private void recordCommitted(List<ReadyGroup> groups, int commitIndex) {
      table.refresh();
      Snapshot snapshot =
          SnapshotStamp.commitsOf(table, plan.jobId(), plan.pinned().snapshotId()).get(commitIndex);
      if (snapshot == null) {
        // committed, then replaced by a rollback before we could read it back: say so, don't guess
        problems.add("commit " + commitIndex + " succeeded but its snapshot is not in the current history");
        groups.forEach(group -> ledger.rewritten(group.index(), -1L));
        return;
      }
      groups.forEach(group -> ledger.rewritten(group.index(), snapshot.snapshotId()));
      problems.addAll(CommitVerifier.verify(table, snapshot, expected(groups)));
      committed.put(snapshot.snapshotId(), snapshot);
    }

    static CommitVerifier.Expected expected(List<ReadyGroup> groups) {
      return new CommitVerifier.Expected(
          groups.stream().mapToInt(group -> group.tasks().size()).sum(),
          groups.stream().mapToInt(group -> group.outputs().size()).sum(),
          groups.stream().mapToLong(group -> group.result().inputRows()).sum(),
          groups.stream().mapToLong(group -> group.result().outputRows()).sum(),
          removableDeletes(groups).keySet());
    }
  }

  /**
   * Delete files that apply only to files this commit replaces: deletion vectors and file-scoped
   * position deletes. Partition-scoped and equality deletes may still apply to other files: kept.
   */
  static Map<String, DeleteFile> removableDeletes(List<ReadyGroup> groups) {
    Map<String, DeleteFile> removable = new LinkedHashMap<>();
    for (ReadyGroup group : groups) {
      for (FileScanTask task : group.tasks()) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.POSITION_DELETES && ContentFileUtil.isFileScoped(delete)) {
            removable.putIfAbsent(CommitVerifier.key(delete), delete);
          }
        }
      }
    }
    return removable;
  }
}
