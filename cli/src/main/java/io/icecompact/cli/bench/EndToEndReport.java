package io.icecompact.cli.bench;

import io.icecompact.worker.RewritePathChoice;
import java.io.PrintWriter;
import java.util.Locale;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** Prints {@code bench --e2e} as Markdown: one line per generated table, one row per job run. */
final class EndToEndReport {
  private static final String HEADER =
      "| size | format | path | process | plan s | rewrite s | commit s | total s | MB/s | group ms median / p90"
          + " | groups by path | status | live rows after |\n"
          + "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|";

  /** A run's figures and what the read-back of the live rows found. */
  record Verified(JobRunFigures figures, String liveRows) {}

  private final PrintWriter out;

  EndToEndReport(PrintWriter out) {
    this.out = out;
  }

  void table(SparkShapedTable.Size size, int version, Table table, LiveRowChecksum rows) {
    Snapshot current = table.currentSnapshot();
    long[] data = EndToEndBench.dataFiles(table);
    out.printf(Locale.ROOT,
        "%n%s v%d (Spark 3.5 layout, %d day partitions x %d files x %,d rows): %d data files, %.1f MB; %s %s"
            + " deleting %s rows; live: %s%n%n%s%n",
        size.name(), version, size.days(), size.filesPerDay(), size.rowsPerFile(),
        data[0],
        data[1] / (1024.0 * 1024),
        current.summary().getOrDefault("total-delete-files", "?"),
        version >= 3 ? "deletion vectors" : "position delete files",
        current.summary().getOrDefault("total-position-deletes", "?"),
        rows, HEADER);
    out.flush();
  }

  void row(SparkShapedTable.Size size, int version, RewritePathChoice path, String process, Verified run) {
    JobRunFigures f = run.figures();
    out.printf(Locale.ROOT, "| %s | v%d | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %s | %s | %s%s | %s |%n",
        size.name(), version, path.name().toLowerCase(Locale.ROOT), process,
        f.planSeconds(), f.rewriteSeconds(), f.commitSeconds(), f.totalSeconds(),
        f.result().rewrittenBytesCount() / (1024.0 * 1024) / f.totalSeconds(),
        f.groupMillisText(), f.pathsText(),
        f.result().status().name().toLowerCase(Locale.ROOT),
        f.result().verification().verified() ? "" : " (not verified: " + f.result().verification().problems() + ")",
        run.liveRows());
    out.flush();
  }

  void footer(EndToEndBench.Settings settings, double freshStartupSeconds) {
    out.printf(Locale.ROOT,
        "%n%d workers; MB/s = input bytes rewritten / total wall time; 'fresh JVM' runs `icecompact compact` in a"
            + " new java process (%s), its plan time includes JVM start and class loading (`icecompact --version`"
            + " alone: %.2f s); 'warm JVM' runs the same job in the bench's JVM after %d warm-up run(s); group ms"
            + " is each worker's own time for its group (median / 90th percentile); live rows are read back"
            + " with every delete applied and compared with the generated table's (count, multiset checksum)%n",
        settings.workers(), String.join(" ", settings.javaOptions()), freshStartupSeconds, settings.warmups());
    out.flush();
  }
}
