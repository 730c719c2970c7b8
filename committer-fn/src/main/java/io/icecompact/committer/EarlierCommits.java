package io.icecompact.committer;

import io.icecompact.core.error.PlanIntegrityException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the snapshots an earlier run of the same job committed (by their stamp, never by {@code
 * currentSnapshot()}) and records them in the run, so a re-run commits only what is left.
 */
final class EarlierCommits {
  private static final Logger LOG = LoggerFactory.getLogger(EarlierCommits.class);

  private EarlierCommits() {}

  /** Records the earlier commits in {@code run} and moves its next commit index past every one. */
  static void recover(CommitRun run) {
    Map<Integer, Snapshot> earlier =
        SnapshotStamp.commitsOf(run.table(), run.plan().jobId(), run.plan().pinned().snapshotId());
    int next = 0;
    for (Map.Entry<Integer, Snapshot> commit : earlier.entrySet()) {
      CommitIntent intent =
          run.store()
              .readDocument(run.work().commitIntent(commit.getKey()), CommitIntent.class)
              .orElseThrow(
                  () ->
                      new PlanIntegrityException(
                          "Snapshot "
                              + commit.getValue().snapshotId()
                              + " carries this job's stamp but commit intent "
                              + run.work().commitIntent(commit.getKey())
                              + " is missing"));
      List<ReadyGroup> groups = intent.groupIndexes().stream().map(run.ready()::get).toList();
      if (groups.contains(null)) {
        throw new PlanIntegrityException(
            "Commit intent " + commit.getKey() + " names a group without a valid result");
      }
      run.committed(commit.getValue(), groups);
      next = Math.max(next, commit.getKey() + 1);
      LOG.info(
          "{} found commit {} of an earlier run: snapshot {}",
          run.logPrefix(),
          commit.getKey(),
          commit.getValue().snapshotId());
    }
    // An intent without a snapshot belongs to an attempt whose outcome was unknown: its index is
    // never reused, so a commit that lands late cannot be mistaken for another group list.
    while (run.store()
        .readDocument(run.work().commitIntent(next), CommitIntent.class)
        .isPresent()) {
      next++;
    }
    run.nextCommitIndex(next);
  }
}
