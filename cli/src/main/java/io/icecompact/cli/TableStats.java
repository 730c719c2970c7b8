package io.icecompact.cli;

import java.io.PrintWriter;
import java.util.Locale;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/** One line about a table's shape, from its current snapshot's summary. */
final class TableStats {
  private TableStats() {}

  static void describe(String label, Table table, PrintWriter out) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      out.printf("%s: %s has no snapshot%n", label, table.name());
      return;
    }
    var summary = current.summary();
    int snapshots = 0;
    for (Snapshot ignored : table.snapshots()) {
      snapshots++;
    }
    out.printf(
        Locale.ROOT,
        "%s: %s data files, %s delete files, %s rows, %s, %d snapshots%n",
        label,
        summary.getOrDefault(SnapshotSummary.TOTAL_DATA_FILES_PROP, "?"),
        summary.getOrDefault(SnapshotSummary.TOTAL_DELETE_FILES_PROP, "?"),
        summary.getOrDefault(SnapshotSummary.TOTAL_RECORDS_PROP, "?"),
        ResultPrinter.bytes(
            Long.parseLong(summary.getOrDefault(SnapshotSummary.TOTAL_FILE_SIZE_PROP, "0"))),
        snapshots);
  }
}
