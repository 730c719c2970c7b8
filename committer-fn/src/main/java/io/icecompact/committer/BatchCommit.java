package io.icecompact.committer;

import io.icecompact.core.job.JobPlan;
import io.icecompact.core.options.RewriteOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One snapshot's worth of groups, committed as one {@code RewriteFiles}: a refusal that conflicts
 * explain drops those groups and commits the rest again; an unknown outcome is looked up by the
 * job's stamp. Each attempt first writes its commit intent (which groups commit index N holds).
 */
final class BatchCommit {
  private static final Logger LOG = LoggerFactory.getLogger(BatchCommit.class);
  /** Each refused commit that conflicts explain removes at least one group; this bounds the rounds. */
  private static final int MAX_CONFLICT_ROUNDS = 5;

  private final CommitRun run;
  private final CommitGuard guard;

  BatchCommit(CommitRun run, CommitGuard guard) {
    this.run = run;
    this.guard = guard;
  }

  /** Commits {@code batch}; moves the run's next commit index past every index an attempt used. */
  void commit(List<ReadyGroup> batch) {
    JobPlan plan = run.plan();
    Table table = run.table();
    RewriteOptions options = run.options();
    GroupLedger ledger = run.ledger();
    int commitIndex = run.nextCommitIndex();
    List<ReadyGroup> remaining = new ArrayList<>(batch);
    for (int round = 1; !remaining.isEmpty(); round++) {
      run.store().writeDocument(run.work().commitIntent(commitIndex),
          new CommitIntent(plan.jobId(), commitIndex, remaining.stream().map(ReadyGroup::index).toList()));
      if (options.useStartingSequenceNumber()) {
        table.refresh();
        Optional<String> dropped =
            LateDeletes.wouldBeDropped(table, plan.pinned().sequenceNumber(), replacedLocations(remaining));
        if (dropped.isPresent()) {
          LOG.warn("{} commit {} not attempted: {}", run.logPrefix(), commitIndex, dropped.get());
          remaining.forEach(group -> ledger.conflicted(group.index(), dropped.get()));
          if (!options.allowPartial()) {
            run.stop();
          }
          return;
        }
      }
      try {
        commitOnce(remaining, commitIndex);
        recordCommitted(remaining, commitIndex);
        run.nextCommitIndex(commitIndex + 1);
        return;
      } catch (CommitStateUnknownException e) {
        table.refresh();
        run.nextCommitIndex(commitIndex + 1);
        if (SnapshotStamp.commitsOf(table, plan.jobId(), plan.pinned().snapshotId()).containsKey(commitIndex)) {
          recordCommitted(remaining, commitIndex);
          return;
        }
        remaining.forEach(group -> ledger.unknown(group.index(), e.getMessage()));
        run.stop();
        return;
      } catch (ValidationException | CommitFailedException e) {
        table.refresh();
        Map<Integer, String> conflicts =
            ConflictDetector.detect(table, plan, remaining, options.useStartingSequenceNumber());
        LOG.warn("{} commit {} refused ({}); conflicting groups: {}",
            run.logPrefix(), commitIndex, e.getMessage(), conflicts.keySet());
        if (conflicts.isEmpty() || round >= MAX_CONFLICT_ROUNDS) {
          String reason = "commit refused: " + e.getClass().getSimpleName() + ": " + e.getMessage();
          remaining.forEach(group -> ledger.failed(group.index(), reason));
          if (!options.allowPartial()) {
            run.stop();
          }
          return;
        }
        List<ReadyGroup> dropped = remaining.stream().filter(g -> conflicts.containsKey(g.index())).toList();
        dropped.forEach(group -> ledger.conflicted(group.index(), conflicts.get(group.index())));
        remaining.removeAll(dropped);
        if (!options.allowPartial() && !remaining.isEmpty()) {
          String reason = String.format("not committed: %s=false and group %d conflicted",
              RewriteOptions.ALLOW_PARTIAL, dropped.get(0).index());
          remaining.forEach(group -> ledger.notCommitted(group.index(), reason));
          run.stop();
          return;
        }
      }
    }
  }

  private static Set<String> replacedLocations(List<ReadyGroup> groups) {
    Set<String> locations = new HashSet<>();
    groups.forEach(group -> group.tasks().forEach(task -> locations.add(task.file().location())));
    return locations;
  }

  private void commitOnce(List<ReadyGroup> groups, int commitIndex) {
    JobPlan plan = run.plan();
    RewriteFiles rewrite = run.table().newRewrite().validateFromSnapshot(plan.pinned().snapshotId());
    if (run.options().useStartingSequenceNumber()) {
      rewrite.dataSequenceNumber(plan.pinned().sequenceNumber());
    }
    for (ReadyGroup group : groups) {
      group.tasks().forEach(task -> rewrite.deleteFile(task.file()));
      RemovableDeletes.of(List.of(group)).values().forEach(rewrite::deleteFile);
      group.outputs().forEach(rewrite::addFile);
    }
    rewrite.set(SnapshotStamp.JOB_ID, plan.jobId());
    rewrite.set(SnapshotStamp.COMMIT_INDEX, Integer.toString(commitIndex));
    rewrite.set(SnapshotStamp.GROUPS, Integer.toString(groups.size()));
    guard.check();
    rewrite.commit();
  }

  private void recordCommitted(List<ReadyGroup> groups, int commitIndex) {
    Table table = run.table();
    table.refresh();
    Snapshot snapshot =
        SnapshotStamp.commitsOf(table, run.plan().jobId(), run.plan().pinned().snapshotId()).get(commitIndex);
    if (snapshot == null) {
      // committed, then replaced by a rollback before we could read it back: say so, don't guess
      run.problems().add("commit " + commitIndex + " succeeded but its snapshot is not in the current history");
      groups.forEach(group -> run.ledger().rewritten(group.index(), -1L));
      return;
    }
    run.committed(snapshot, groups);
  }

  /** What committing {@code groups} in one snapshot is meant to do, for {@link CommitVerifier}. */
  static CommitVerifier.Expected expected(List<ReadyGroup> groups) {
    return new CommitVerifier.Expected(
        groups.stream().mapToInt(group -> group.tasks().size()).sum(),
        groups.stream().mapToInt(group -> group.outputs().size()).sum(),
        groups.stream().mapToLong(group -> group.result().inputRows()).sum(),
        groups.stream().mapToLong(group -> group.result().outputRows()).sum(),
        RemovableDeletes.of(groups).keySet());
  }
}
