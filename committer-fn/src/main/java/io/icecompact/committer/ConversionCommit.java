package io.icecompact.committer;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.GroupOutcome.Status;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * Commits a conversion's ready groups as one {@code RewriteFiles}, in rounds: each round retires
 * the equality deletes the groups still ready allow ({@link EqualityDeleteRetirement}); a refusal
 * that names converted data files drops their groups and the next round commits the rest; losing
 * every race until the commit time runs out ends them {@code CONTENDED}; an unknown outcome is
 * looked up by the job's stamp. Each attempt's swap is preceded by {@link ConversionConflicts} on
 * the metadata it replaces.
 */
final class ConversionCommit {
  /** Each round that conflicts explain drops at least one group; this bounds those rounds. */
  private static final int MAX_CONFLICT_ROUNDS = 5;

  /** A conversion is one snapshot: commit index 0 of its job's stamp. */
  static final int COMMIT_INDEX = 0;

  private final ConversionRun run;
  private final CommitGuard guard;
  private final CommitDeadline deadline;

  ConversionCommit(ConversionRun run, CommitGuard guard, CommitDeadline deadline) {
    this.run = run;
    this.guard = guard;
    this.deadline = deadline;
  }

  void commit() {
    Table table = run.table;
    int conflictRounds = 0;
    while (!run.ready.isEmpty()) {
      run.retirement =
          EqualityDeleteRetirement.of(
              run.scope, run.ready.values().stream().map(ConversionRun.Ready::result).toList());
      if (run.retirement.retired().isEmpty()) {
        String reason =
            String.format(
                "not committed: each of the %d equality delete files it converted still applies to"
                    + " a data file this job did not convert (outside its filter, in a group left"
                    + " for the next run, failed or conflicted), so none could be removed",
                run.retirement.kept().size());
        List.copyOf(run.ready.values()).forEach(group -> run.holdBack(group.planned(), reason));
        return;
      }
      Optional<Snapshot> earlier = stamped(run);
      if (earlier.isPresent()) {
        run.committed = earlier.get(); // an earlier run's commit landed: never commit twice
        return;
      }
      ConversionConflicts conflicts =
          new ConversionConflicts(
              table.io(), run.plan.pinned().snapshotId(), run.convertedDataFiles());
      WatchedOperations ops =
          new WatchedOperations(
              WatchedOperations.operationsOf(table),
              COMMIT_INDEX,
              conflicts::check,
              run.attempts,
              deadline.retrySettings());
      try {
        RewriteFiles rewrite = rewrite(WatchedOperations.watched(table, ops));
        guard.check();
        rewrite.commit();
        table.refresh();
        run.committed = stamped(run).orElse(null);
        if (run.committed == null) {
          // committed, then replaced by a rollback before it could be read back: say so
          run.problems.add("the commit succeeded but its snapshot is not in the current history");
        }
        return;
      } catch (ConversionConflicts.Refused e) {
        run.conflicted(e.dataFiles());
        if (++conflictRounds >= MAX_CONFLICT_ROUNDS || !run.options.allowPartial()) {
          run.endAll(Status.CONFLICTED, "not committed: " + e.getMessage());
        }
      } catch (CommitStateUnknownException e) {
        table.refresh();
        run.committed = stamped(run).orElse(null);
        if (run.committed == null) {
          run.unknown = true;
          run.endAll(
              Status.NOT_COMMITTED,
              "the commit's outcome is unknown (" + e.getMessage() + "); re-run the committer");
        }
        return;
      } catch (CommitFailedException e) {
        if (deadline.passed()) {
          run.endAll(
              Status.CONTENDED,
              String.format(
                  "lost the commit race to other writers' commits until the commit time ran out"
                      + " (%s); run the job again. Last: %s",
                  deadline.bound(), e.getMessage()));
          return;
        }
        deadline.pause();
      } catch (ValidationException e) {
        // Iceberg's own check ran first: a delete file this commit removes is gone. A concurrent
        // compaction does that as it removes the converted data files: name them and drop their
        // groups; a refusal nothing explains ends every group
        table.refresh();
        try {
          conflicts.check(WatchedOperations.operationsOf(table).current());
          run.endAll(Status.CONFLICTED, "commit refused: " + e.getMessage());
          return;
        } catch (ConversionConflicts.Refused explained) {
          run.conflicted(explained.dataFiles());
          if (++conflictRounds >= MAX_CONFLICT_ROUNDS || !run.options.allowPartial()) {
            run.endAll(Status.CONFLICTED, "not committed: " + explained.getMessage());
          }
        }
      }
    }
  }

  /**
   * Removes the retired equality deletes; adds each data file's new deletes where one of its
   * deletes is retired, removing the DVs they merged.
   */
  private RewriteFiles rewrite(Table table) {
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(run.plan.pinned().snapshotId());
    Map<String, DeleteFile> replaced = new LinkedHashMap<>();
    for (ConversionRun.Ready group : run.ready.values()) {
      for (ConvertedGroup.File file : group.result().files()) {
        if (run.retirement.commits(file)) {
          rewrite.addFile(ConvertedGroups.deleteFile(file.positionDeletes(), run.table));
          for (JsonNode node : file.replacedDeletes()) {
            DeleteFile old = ConvertedGroups.deleteFile(node, run.table);
            replaced.putIfAbsent(old.location() + "@" + old.contentOffset(), old);
          }
        }
      }
    }
    run.retirement
        .retired()
        .forEach(location -> rewrite.deleteFile(run.equalityDeletes.get(location)));
    replaced.values().forEach(rewrite::deleteFile);
    rewrite.set(SnapshotStamp.JOB_ID, run.plan.jobId());
    rewrite.set(SnapshotStamp.COMMIT_INDEX, Integer.toString(COMMIT_INDEX));
    rewrite.set(SnapshotStamp.GROUPS, Integer.toString(run.ready.size()));
    return rewrite;
  }

  static Optional<Snapshot> stamped(ConversionRun run) {
    return Optional.ofNullable(
        SnapshotStamp.commitsOf(run.table, run.plan.jobId(), run.plan.pinned().snapshotId())
            .get(COMMIT_INDEX));
  }
}
