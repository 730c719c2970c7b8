package io.icecompact.committer;

import io.icecompact.core.error.ApplicationException;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer stage: checks the whole job, then commits its groups (a {@code
 * convert-equality-deletes} job's: {@link ConvertCommitter}) as one Iceberg {@code replace}
 * snapshot (or up to {@code partial-progress.max-commits} snapshots).
 *
 * <p>{@link #commit} is a straight line over one {@link CommitRun}: return a finished run's stored
 * result; check that the pinned snapshot is still an ancestor; validate every worker result ({@link
 * ResultValidator}); recover the commits of an earlier run ({@link EarlierCommits}); commit the
 * pending groups batch by batch ({@link BatchCommit}, verified by {@link CommitVerifier}); delete
 * the outputs nothing committed ({@link OutputCleanup}); report ({@link JobResultReport}).
 *
 * <h2>Failure semantics</h2>
 *
 * <ul>
 *   <li>A broken invariant (a result that disagrees with the plan or storage, a pinned snapshot
 *       that is no longer an ancestor) fails the job before any commit; nothing is deleted.
 *   <li>A refused commit ({@code ValidationException}, or {@code CommitFailedException} after
 *       Iceberg's own retries) is attributed to groups by {@link ConflictDetector}: those groups
 *       are {@code CONFLICTED}, their outputs deleted, and the rest is committed again in the same
 *       single snapshot (unless {@code allow-partial=false}). A refusal no group explains fails the
 *       batch.
 *   <li>{@code CommitStateUnknownException}: the job's stamp is looked up in the snapshot log.
 *       Found: committed. Not found: the job ends {@code UNKNOWN} and deletes nothing, since the
 *       files may be live. Re-running the committer resolves it.
 *   <li>A re-run after a finished run returns the stored result; after a crash it finds the job's
 *       committed snapshots by their stamp and commits only what is left. No second snapshot.
 * </ul>
 *
 * <h2>Correctness properties</h2>
 *
 * Every commit validates from the pinned snapshot, so a concurrent position delete or rewrite of an
 * input file refuses it; rewritten files keep the pinned sequence number (unless {@code
 * use-starting-sequence-number=false}), so concurrent equality deletes still apply to them. Counts
 * in the result are read back from the committed snapshots' summaries.
 */
public final class JobCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(JobCommitter.class);

  private final TableAccess access;
  private final CommitGuard guard;
  private final LongSupplier invocationMillisLeft;

  public JobCommitter(TableAccess access) {
    this(access, CommitGuard.NONE);
  }

  public JobCommitter(TableAccess access, CommitGuard guard) {
    this(access, guard, null);
  }

  /**
   * @param invocationMillisLeft the time the committer's invocation has left (a Lambda's), which
   *     bounds how long it keeps trying to commit against other writers; null when only the table's
   *     {@code commit.retry.total-timeout-ms} does
   */
  public JobCommitter(TableAccess access, CommitGuard guard, LongSupplier invocationMillisLeft) {
    this.access = access;
    this.guard = guard;
    this.invocationMillisLeft = invocationMillisLeft;
  }

  public JobResult commit(CommitRequest request) {
    return commit(request, System.currentTimeMillis());
  }

  /**
   * As {@link #commit(CommitRequest)}, the result's duration counted from {@code jobStartedMillis}:
   * the embedded runner's whole job, planning and rewriting included, rather than the commit alone.
   *
   * @throws io.icecompact.core.error.TransientException when the environment failed (S3 failing
   *     while Iceberg writes manifests or the metadata file, a reset connection): safe to retry,
   *     since a re-run finds the job's commits by their stamp; other errors as thrown
   */
  public JobResult commit(CommitRequest request, long jobStartedMillis) {
    try {
      return commitJob(request, jobStartedMillis);
    } catch (RuntimeException e) {
      // the committer's word for both runners: the state machine's Retry matches the
      // TransientException,
      // and the embedded runner tells the operator to re-commit
      throw FailureClassifier.retryableIfTransient(e, "Cannot commit job " + request.jobId());
    }
  }

  private JobResult commitJob(CommitRequest request, long jobStartedMillis) {
    long started = jobStartedMillis;
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = new WorkLocation(request.workLocation());
    JobPlan plan = store.readPlan(request.jobId(), request.planLocation(), request.planSha256());
    Optional<JobResult> finished =
        store
            .readDocument(work.jobResult(), JobResult.class)
            .filter(result -> result.status() != JobStatus.UNKNOWN);
    if (finished.isPresent()) {
      LOG.info(
          "[{} {} committer] already finished as {}; returning the stored result",
          plan.table(),
          plan.jobId(),
          finished.get().status());
      return finished.get();
    }

    if (plan.converts()) {
      return new ConvertCommitter(access, guard, invocationMillisLeft)
          .commit(plan, store, work, started);
    }
    Table table = access.loadTable(plan.table());
    CommitRun run;
    try {
      requirePinnedIsAncestor(table, plan);
      ResultValidator.Validated validated =
          new ResultValidator(plan, store, work, access.fileIO(), table.specs()).validate();
      CommitDeadline deadline =
          CommitDeadline.startingNow(
              table.properties(),
              invocationMillisLeft == null
                  ? OptionalLong.empty()
                  : OptionalLong.of(invocationMillisLeft.getAsLong()));
      run =
          new CommitRun(
              plan, RewriteOptions.parse(plan.options()), table, store, work, validated, deadline);
      EarlierCommits.recover(run);
      for (List<ReadyGroup> batch :
          batches(pendingGroups(run), run.options(), run.committedSnapshots().size())) {
        if (run.stopped()) {
          batch.forEach(
              group ->
                  run.ledger()
                      .notCommitted(
                          group.index(),
                          "not committed: an earlier commit of the job did not succeed"));
        } else {
          new BatchCommit(run, guard).commit(batch);
        }
      }
    } catch (ApplicationException e) {
      // stopped before committing (a broken invariant, a table rolled back past the pinned
      // snapshot):
      // this job will never commit these outputs
      OutputCleanup cleanup = new OutputCleanup(access.fileIO(), plan);
      cleanup.deleteAllStored(table, store, work);
      cleanup.deleteUnreported(store, work, Map.of());
      throw e;
    }
    if (!run.ledger().anyUnknown()) {
      // With an unknown commit, any output may be live: keep everything until a re-run decides.
      OutputCleanup cleanup = new OutputCleanup(access.fileIO(), plan);
      run.problems().addAll(cleanup.delete(table, uncommittedOutputs(run)));
      cleanup.deleteUnreported(store, work, reportedAttempts(run));
    }

    JobResult result = JobResultReport.of(run, System.currentTimeMillis() - started);
    store.writeDocument(work.jobResult(), result);
    LOG.info(
        "{} {}: {} groups rewritten in snapshots {}; {}",
        run.logPrefix(),
        result.status(),
        result.rewrittenGroups(),
        result.snapshotIds(),
        CommitAttempts.line(result.commit()));
    return result;
  }

  static void requirePinnedIsAncestor(Table table, JobPlan plan) {
    long pinnedId = plan.pinned().snapshotId();
    if (table.currentSnapshot() == null
        || !SnapshotUtil.isAncestorOf(table, table.currentSnapshot().snapshotId(), pinnedId)) {
      throw new JobInvariantViolationException(
          String.format(
              "Job %s not committed: pinned snapshot %d is no longer an ancestor of the current"
                  + " snapshot %s (the table was rolled back or replaced)",
              plan.jobId(),
              pinnedId,
              table.currentSnapshot() == null ? "none" : table.currentSnapshot().snapshotId()));
    }
  }

  /**
   * Ready groups no earlier run committed, in plan order; none when a group failed and {@code
   * allow-partial=false} (those are recorded as not committed).
   */
  private static List<ReadyGroup> pendingGroups(CommitRun run) {
    List<ReadyGroup> pending =
        run.ready().values().stream()
            .filter(group -> !run.ledger().decided(group.index()))
            .sorted(Comparator.comparingInt(ReadyGroup::index))
            .toList();
    if (run.options().allowPartial() || run.failed().isEmpty()) {
      return pending;
    }
    String reason =
        String.format(
            "not committed: %s=false and %d group(s) failed",
            RewriteOptions.ALLOW_PARTIAL, run.failed().size());
    pending.forEach(group -> run.ledger().notCommitted(group.index(), reason));
    return List.of();
  }

  /**
   * Splits {@code groups} into at most the commits {@code partial-progress.max-commits} has left
   * after the {@code earlierCommits} an earlier run of the job made (always at least one).
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

  /** The attempt each ready group's result names (the other groups' are read by OutputCleanup). */
  private static Map<Integer, Integer> reportedAttempts(CommitRun run) {
    Map<Integer, Integer> attempts = new TreeMap<>();
    run.ready().values().forEach(group -> attempts.put(group.index(), group.result().attempt()));
    return attempts;
  }

  /**
   * Outputs of the groups that were not committed: ready but not rewritten, or failed with a
   * result.
   */
  private static Map<Integer, List<String>> uncommittedOutputs(CommitRun run) {
    Map<Integer, List<String>> outputs = new TreeMap<>();
    run.ready().values().stream()
        .filter(group -> !run.ledger().isRewritten(group.index()))
        .forEach(
            group ->
                outputs.put(
                    group.index(), group.outputs().stream().map(DataFile::location).toList()));
    run.failed()
        .keySet()
        .forEach(
            index ->
                outputs.put(index, OutputCleanup.storedOutputs(run.store(), run.work(), index)));
    return outputs;
  }
}
