package io.icecompact.committer;

import io.icecompact.committer.WatchedOperations.BeforeSwap;
import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.options.RewriteOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One snapshot's worth of groups, committed as one {@code RewriteFiles}, in rounds until it lands
 * or the job's commit time runs out ({@link CommitDeadline}).
 *
 * <ul>
 *   <li>Each round is one call of Iceberg's {@code commit()}, whose own retries are attempts of the
 *       round; every attempt is watched ({@link WatchedOperations}): timed, and checked on the
 *       exact metadata it replaces (delete files the rewrite would drop, {@link LateDeletes}).
 *   <li>A round whose attempts all lost the compare-and-swap to other writers is not a failure:
 *       after a short random wait the next round validates only what was committed since the newest
 *       snapshot an attempt already validated, so a lost round costs little more than reading and
 *       writing metadata. When the time runs out, the groups end {@code CONTENDED}.
 *   <li>A refusal that conflicts explain drops those groups and commits the rest again; an unknown
 *       outcome is looked up by the job's stamp.
 * </ul>
 *
 * Each set of groups first writes its commit intent (which groups commit index N holds).
 */
final class BatchCommit {
  private static final Logger LOG = LoggerFactory.getLogger(BatchCommit.class);

  /**
   * Each refused commit that conflicts explain removes at least one group; this bounds those
   * rounds.
   */
  private static final int MAX_CONFLICT_ROUNDS = 5;

  /**
   * An attempt refused by the job's own check before its swap; Iceberg deletes the attempt's files.
   */
  private static final class DeleteWouldBeDropped extends ValidationException {
    DeleteWouldBeDropped(String reason) {
      super("%s", reason);
    }
  }

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
    LateDeletes lateDeletes = null;
    Snapshot validateFrom = null; // null: the pinned snapshot
    int conflictRounds = 0;
    while (!remaining.isEmpty()) {
      if (lateDeletes == null) {
        run.store()
            .writeDocument(
                run.work().commitIntent(commitIndex),
                new CommitIntent(
                    plan.jobId(), commitIndex, remaining.stream().map(ReadyGroup::index).toList()));
        lateDeletes =
            new LateDeletes(
                table.io(), plan.pinned().sequenceNumber(), replacedLocations(remaining));
      }
      BeforeSwap beforeSwap = beforeSwap(lateDeletes);
      WatchedOperations ops =
          new WatchedOperations(
              WatchedOperations.operationsOf(table),
              commitIndex,
              beforeSwap,
              run.attempts(),
              run.deadline().retrySettings());
      try {
        commitOnce(remaining, commitIndex, ops, beforeSwap, validateFrom);
        recordCommitted(remaining, commitIndex);
        run.nextCommitIndex(commitIndex + 1);
        return;
      } catch (DeleteWouldBeDropped e) {
        LOG.warn("{} commit {} not made: {}", run.logPrefix(), commitIndex, e.getMessage());
        remaining.forEach(group -> ledger.conflicted(group.index(), e.getMessage()));
        if (!options.allowPartial()) {
          run.stop();
        }
        return;
      } catch (CommitStateUnknownException e) {
        table.refresh();
        run.nextCommitIndex(commitIndex + 1);
        if (SnapshotStamp.commitsOf(table, plan.jobId(), plan.pinned().snapshotId())
            .containsKey(commitIndex)) {
          recordCommitted(remaining, commitIndex);
          return;
        }
        remaining.forEach(group -> ledger.unknown(group.index(), e.getMessage()));
        run.stop();
        return;
      } catch (CommitFailedException e) {
        // Iceberg's attempts, retried until the deadline, all lost the swap to other writers'
        // commits: not
        // the groups' fault, and not a failure
        ops.refresh(); // what the last attempt lost to
        if (run.deadline().passed()) {
          List<CommitAttempt> attempts =
              run.attempts().stream().filter(a -> a.commitIndex() == commitIndex).toList();
          String reason =
              String.format(
                  "lost the commit race: %d attempts lost the swap to other writers' commits (%d landed meanwhile)"
                      + " until the commit time ran out (%s); run the job again. Last: %s",
                  attempts.stream().filter(a -> a.outcome() == CommitAttempt.Outcome.LOST).count(),
                  attempts.stream().mapToInt(CommitAttempt::tableCommitsMeanwhile).sum(),
                  run.deadline().bound(),
                  e.getMessage());
          LOG.warn("{} commit {}: {}", run.logPrefix(), commitIndex, reason);
          remaining.forEach(group -> ledger.contended(group.index(), reason));
          if (!options.allowPartial()) {
            run.stop();
          }
          return;
        }
        if (ops.lastValidated() != null) {
          validateFrom = ops.lastValidated();
        }
        run.deadline().pause();
      } catch (ValidationException e) {
        table.refresh();
        Snapshot validatedFrom = ops.lastValidated() != null ? ops.lastValidated() : validateFrom;
        if (validatedFrom != null
            && !isAncestor(table, validatedFrom)
            && conflictRounds < MAX_CONFLICT_ROUNDS) {
          // the history changed under the snapshot validated last (a rollback): from the pinned one
          // again
          validateFrom = null;
          conflictRounds++;
          continue;
        }
        conflictRounds++;
        Map<Integer, String> conflicts =
            ConflictDetector.detect(table, plan, remaining, options.useStartingSequenceNumber());
        LOG.warn(
            "{} commit {} refused ({}); conflicting groups: {}",
            run.logPrefix(),
            commitIndex,
            e.getMessage(),
            conflicts.keySet());
        if (conflicts.isEmpty() || conflictRounds >= MAX_CONFLICT_ROUNDS) {
          String reason = "commit refused: " + e.getClass().getSimpleName() + ": " + e.getMessage();
          remaining.forEach(group -> ledger.failed(group.index(), reason));
          if (!options.allowPartial()) {
            run.stop();
          }
          return;
        }
        List<ReadyGroup> dropped =
            remaining.stream().filter(g -> conflicts.containsKey(g.index())).toList();
        dropped.forEach(group -> ledger.conflicted(group.index(), conflicts.get(group.index())));
        remaining.removeAll(dropped);
        lateDeletes = null;
        if (!options.allowPartial() && !remaining.isEmpty()) {
          String reason =
              String.format(
                  "not committed: %s=false and group %d conflicted",
                  RewriteOptions.ALLOW_PARTIAL, dropped.get(0).index());
          remaining.forEach(group -> ledger.notCommitted(group.index(), reason));
          run.stop();
          return;
        }
      }
    }
  }

  private static boolean isAncestor(Table table, Snapshot snapshot) {
    return table.currentSnapshot() != null
        && SnapshotUtil.isAncestorOf(
            table, table.currentSnapshot().snapshotId(), snapshot.snapshotId());
  }

  private BeforeSwap beforeSwap(LateDeletes lateDeletes) {
    if (!run.options().useStartingSequenceNumber()) {
      return BeforeSwap.NONE;
    }
    return new BeforeSwap() {
      @Override
      public void check(TableMetadata base) {
        lateDeletes
            .wouldBeDropped(base)
            .ifPresent(
                reason -> {
                  throw new DeleteWouldBeDropped(reason);
                });
      }

      @Override
      public void prime(TableMetadata metadata) {
        lateDeletes.wouldBeDropped(
            metadata); // reads every manifest once; the attempts' checks decide
      }
    };
  }

  private static Set<String> replacedLocations(List<ReadyGroup> groups) {
    Set<String> locations = new HashSet<>();
    groups.forEach(group -> group.tasks().forEach(task -> locations.add(task.file().location())));
    return locations;
  }

  private void commitOnce(
      List<ReadyGroup> groups,
      int commitIndex,
      WatchedOperations ops,
      BeforeSwap beforeSwap,
      Snapshot validateFrom) {
    JobPlan plan = run.plan();
    RewriteFiles rewrite =
        WatchedOperations.watched(run.table(), ops)
            .newRewrite()
            .validateFromSnapshot(
                validateFrom == null ? plan.pinned().snapshotId() : validateFrom.snapshotId());
    // Each attempt that reached its swap passed Iceberg's validation up to the snapshot it tried to
    // replace:
    // the next attempt validates only what was committed after it. Iceberg reads the starting
    // snapshot
    // after reading the metadata, so setting it before each read covers the whole attempt.
    ops.beforeEachRead(
        () -> {
          if (ops.lastValidated() != null) {
            rewrite.validateFromSnapshot(ops.lastValidated().snapshotId());
          }
        });
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
    // The expensive part before the race: reading and filtering every manifest, writing the new
    // ones and
    // validating from the pinned snapshot. Iceberg keeps what apply() wrote for the commit's
    // attempts,
    // each of which then only reads what was committed since (and commit() deletes it all if it
    // gives up).
    long preparing = System.nanoTime();
    rewrite.apply();
    ops.validatedOnLastRead();
    beforeSwap.prime(ops.lastRead());
    run.prepared((System.nanoTime() - preparing) / 1_000_000);
    rewrite.commit();
  }

  private void recordCommitted(List<ReadyGroup> groups, int commitIndex) {
    Table table = run.table();
    table.refresh();
    Snapshot snapshot =
        SnapshotStamp.commitsOf(table, run.plan().jobId(), run.plan().pinned().snapshotId())
            .get(commitIndex);
    if (snapshot == null) {
      // committed, then replaced by a rollback before we could read it back: say so, don't guess
      run.problems()
          .add(
              "commit "
                  + commitIndex
                  + " succeeded but its snapshot is not in the current history");
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
