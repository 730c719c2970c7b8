package io.icecompact.committer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * Reads a committed snapshot back and compares it with what the job meant to commit. The result's
 * counts come from here, not from the committer's own bookkeeping: a report that says "rewritten"
 * must be what the table says.
 *
 * <p>Removed delete files are checked one by one from the snapshot's manifests: each delete file
 * the committer removed must be gone, and any other delete file the snapshot removed must be one
 * that Iceberg's {@code RewriteFiles} drops as dangling in the same commit ({@link
 * DanglingDeletes}). The expected {@code removed-delete-files} count is the sum of both.
 */
final class CommitVerifier {
  private CommitVerifier() {}

  /**
   * What one commit was meant to do.
   *
   * @param removedDeleteFiles keys ({@link #key}) of the delete files the committer removed itself
   */
  record Expected(
      int removedDataFiles,
      int addedDataFiles,
      long removedRows,
      long addedRows,
      Set<String> removedDeleteFiles) {}

  /** Problems found; empty when the snapshot says exactly what was expected. */
  static List<String> verify(Table table, Snapshot snapshot, Expected expected) {
    List<String> problems = new ArrayList<>();
    Map<String, String> summary = snapshot.summary();
    if (!DataOperations.REPLACE.equals(snapshot.operation())) {
      problems.add(
          String.format(
              "snapshot %d has operation %s, expected %s",
              snapshot.snapshotId(), snapshot.operation(), DataOperations.REPLACE));
    }
    compare(
        problems,
        snapshot,
        summary,
        SnapshotSummary.DELETED_FILES_PROP,
        expected.removedDataFiles());
    compare(
        problems, snapshot, summary, SnapshotSummary.ADDED_FILES_PROP, expected.addedDataFiles());
    compare(
        problems, snapshot, summary, SnapshotSummary.DELETED_RECORDS_PROP, expected.removedRows());
    compare(problems, snapshot, summary, SnapshotSummary.ADDED_RECORDS_PROP, expected.addedRows());

    Map<String, DeleteFile> removed = new LinkedHashMap<>();
    SnapshotChanges.builderFor(table)
        .snapshot(snapshot)
        .build()
        .removedDeleteFiles()
        .forEach(file -> removed.put(key(file), file));
    Set<String> stillLive = new TreeSet<>(expected.removedDeleteFiles());
    stillLive.removeAll(removed.keySet());
    stillLive.forEach(
        file ->
            problems.add(
                String.format(
                    "snapshot %d did not remove delete file %s, which the job removed",
                    snapshot.snapshotId(), file)));
    List<DeleteFile> removedByIceberg =
        removed.entrySet().stream()
            .filter(entry -> !expected.removedDeleteFiles().contains(entry.getKey()))
            .map(Map.Entry::getValue)
            .toList();
    DanglingDeletes dangling = new DanglingDeletes(table, snapshot);
    int justified = 0;
    for (DeleteFile file : removedByIceberg) {
      String notDangling = dangling.whyNotDangling(file);
      if (notDangling == null) {
        justified++;
      } else {
        problems.add(
            String.format(
                "snapshot %d removed delete file %s, which the job did not remove and which is not dangling: %s",
                snapshot.snapshotId(), key(file), notDangling));
      }
    }
    compare(
        problems,
        snapshot,
        summary,
        SnapshotSummary.REMOVED_DELETE_FILES_PROP,
        expected.removedDeleteFiles().size() + justified);
    return problems;
  }

  /** A delete file's identity: deletion vectors of several data files can share one Puffin file. */
  static String key(DeleteFile file) {
    return file.contentOffset() == null
        ? file.location()
        : file.location() + "@" + file.contentOffset();
  }

  static long count(Snapshot snapshot, String property) {
    String value = snapshot.summary() == null ? null : snapshot.summary().get(property);
    return value == null ? 0 : Long.parseLong(value);
  }

  private static void compare(
      List<String> problems,
      Snapshot snapshot,
      Map<String, String> summary,
      String property,
      long expected) {
    long actual =
        summary == null || summary.get(property) == null
            ? 0
            : Long.parseLong(summary.get(property));
    if (actual != expected) {
      problems.add(
          String.format(
              "snapshot %d summary %s=%d, expected %d",
              snapshot.snapshotId(), property, actual, expected));
    }
  }
}
