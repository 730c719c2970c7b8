package io.icecompact.committer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * Reads a committed snapshot back and compares its summary with what the job meant to commit. The
 * result's counts come from here, not from the committer's own bookkeeping: a report that says
 * "rewritten" must be what the table says.
 */
final class CommitVerifier {
  private CommitVerifier() {}

  /** What one commit was meant to do. */
  record Expected(int removedDataFiles, int addedDataFiles, long removedRows, long addedRows, int removedDeleteFiles) {}

  /** Problems found; empty when the snapshot says exactly what was expected. */
  static List<String> verify(Snapshot snapshot, Expected expected) {
    List<String> problems = new ArrayList<>();
    Map<String, String> summary = snapshot.summary();
    if (!DataOperations.REPLACE.equals(snapshot.operation())) {
      problems.add(
          String.format(
              "snapshot %d has operation %s, expected %s",
              snapshot.snapshotId(), snapshot.operation(), DataOperations.REPLACE));
    }
    compare(problems, snapshot, summary, SnapshotSummary.DELETED_FILES_PROP, expected.removedDataFiles());
    compare(problems, snapshot, summary, SnapshotSummary.ADDED_FILES_PROP, expected.addedDataFiles());
    compare(problems, snapshot, summary, SnapshotSummary.DELETED_RECORDS_PROP, expected.removedRows());
    compare(problems, snapshot, summary, SnapshotSummary.ADDED_RECORDS_PROP, expected.addedRows());
    compare(
        problems, snapshot, summary, SnapshotSummary.REMOVED_DELETE_FILES_PROP, expected.removedDeleteFiles());
    return problems;
  }

  static long count(Snapshot snapshot, String property) {
    String value = snapshot.summary() == null ? null : snapshot.summary().get(property);
    return value == null ? 0 : Long.parseLong(value);
  }

  private static void compare(
      List<String> problems, Snapshot snapshot, Map<String, String> summary, String property, long expected) {
    long actual = summary == null || summary.get(property) == null ? 0 : Long.parseLong(summary.get(property));
    if (actual != expected) {
      problems.add(
          String.format(
              "snapshot %d summary %s=%d, expected %d", snapshot.snapshotId(), property, actual, expected));
    }
  }
}
