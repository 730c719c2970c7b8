package io.icecompact.cli;

import io.icecompact.core.text.ByteSize;
import io.icecompact.planner.fleet.EqualityDeleteChoice;
import io.icecompact.planner.fleet.EqualityDeleteCosts;
import io.icecompact.planner.fleet.TableAssessment;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * {@code health}'s lines under its table for each table with live equality deletes: what rewriting
 * and converting them would cost and save, as estimated from metadata (docs/fleet.md, "Equality
 * deletes: rewrite or convert").
 */
final class EqualityDeleteEstimates {
  private EqualityDeleteEstimates() {}

  static void print(PrintWriter out, List<TableAssessment> ranked) {
    List<TableAssessment> with = ranked.stream().filter(a -> a.equalityDeletes() != null).toList();
    if (with.isEmpty()) {
      return;
    }
    out.println();
    out.println(
        "Equality deletes: estimates from metadata (requests: one per file, a lower bound)");
    for (TableAssessment a : with) {
      EqualityDeleteCosts c = a.equalityDeletes();
      out.printf(
          Locale.ROOT,
          "%s: %d equality delete files, %d keys, apply to %d data files (%s, mean %s = %s of the"
              + " %s target); decision %s%n",
          a.table(),
          c.equalityDeleteFiles(),
          c.equalityKeys(),
          c.dataFiles(),
          ByteSize.readable(c.dataBytes()),
          ByteSize.readable(c.meanDataFileBytes()),
          EqualityDeleteChoice.percent(c.meanOfTarget()),
          ByteSize.readable(c.targetFileSizeBytes()),
          a.decision().name());
      EqualityDeleteCosts.ActionCost r = c.rewrite();
      out.printf(
          Locale.ROOT,
          "  rewrite: read %s in %d files, write about %s in %d files, %d requests;"
              + " %d data files after, %d equality delete files retired (after delete-cleanup on"
              + " v2), %d keys no longer joined by readers%n",
          ByteSize.readable(r.bytesRead()),
          r.filesRead(),
          ByteSize.readable(r.bytesWrittenEstimate()),
          r.filesWritten(),
          r.requests(),
          r.dataFilesAfter(),
          r.equalityDeleteFilesRetired(),
          c.equalityKeys());
      EqualityDeleteCosts.ActionCost v = c.convert();
      out.printf(
          Locale.ROOT,
          "  convert: read %s (key columns %s from %s, delete files %s) in %d files, write %d"
              + " delete files of at most %s, %d requests; %d data files untouched, %d equality"
              + " delete files retired, %d keys no longer joined by readers%n",
          ByteSize.readable(v.bytesRead()),
          ByteSize.readable(c.keyColumnBytes()),
          c.keyColumnBytesSource(),
          ByteSize.readable(c.deleteBytes()),
          v.filesRead(),
          v.filesWritten(),
          ByteSize.readable(v.bytesWrittenEstimate()),
          v.requests(),
          v.dataFilesAfter(),
          v.equalityDeleteFilesRetired(),
          c.equalityKeys());
    }
  }
}
