package io.icecompact.committer;

import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The job's mark on the snapshots it commits, and the search for it in the table's history. The
 * committer finds "its" snapshots by this stamp, never by {@code currentSnapshot()}, which another
 * writer may have replaced a moment later.
 */
final class SnapshotStamp {
  static final String JOB_ID = "icecompact.job-id";
  static final String COMMIT_INDEX = "icecompact.commit-index";
  static final String GROUPS = "icecompact.rewritten-groups";

  private SnapshotStamp() {}

  /**
   * Commit index to snapshot, for every snapshot of {@code jobId} after {@code pinnedSnapshotId}.
   */
  static Map<Integer, Snapshot> commitsOf(Table table, String jobId, long pinnedSnapshotId) {
    Map<Integer, Snapshot> commits = new TreeMap<>();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return commits;
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (snapshot.snapshotId() == pinnedSnapshotId) {
        break;
      }
      Map<String, String> summary = snapshot.summary();
      if (summary != null && jobId.equals(summary.get(JOB_ID))) {
        commits.put(Integer.parseInt(summary.getOrDefault(COMMIT_INDEX, "0")), snapshot);
      }
    }
    return commits;
  }
}
