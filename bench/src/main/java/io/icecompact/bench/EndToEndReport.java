package io.icecompact.bench;

import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.worker.RewritePathChoice;
import java.io.PrintWriter;
import java.util.Locale;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** Prints {@code bench --e2e} as Markdown: one line per generated table, one row per job run. */
final class EndToEndReport {
  private static final String HEADER =
      "| size | format | path | process | plan s | rewrite s | commit s | total s | CPU s | peak RSS MB | MB/s"
          + " | group ms median / p90 | groups by path | status | live rows after |\n"
          + "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|";

  /** A run's figures and what the read-back of the live rows found. */
  record Verified(JobRunFigures figures, String liveRows) {}

  private final PrintWriter out;

  EndToEndReport(PrintWriter out) {
    this.out = out;
  }

  void table(SparkShapedTable.Size size, int version, Table table, LiveRowChecksum rows) {
    Snapshot current = table.currentSnapshot();
    long[] data = EndToEndBench.dataFiles(table);
    out.printf(
        Locale.ROOT,
        "%n%s v%d (Spark 3.5 layout, %d day partitions x %d files x %,d rows): %d data files, %.1f MB; %s %s"
            + " deleting %s rows; live: %s%n%n%s%n",
        size.name(),
        version,
        size.days(),
        size.filesPerDay(),
        size.rowsPerFile(),
        data[0],
        data[1] / (1024.0 * 1024),
        current.summary().getOrDefault("total-delete-files", "?"),
        version >= 3 ? "deletion vectors" : "position delete files",
        current.summary().getOrDefault("total-position-deletes", "?"),
        rows,
        HEADER);
    out.flush();
  }

  /** A Flink-written CDC table: its stream's shape and its files as generated. */
  void table(
      String name,
      FlinkUpsertTable.Shape shape,
      Table table,
      LiveRowChecksum rows,
      double seconds) {
    out.printf(
        Locale.ROOT,
        "%n%s v%d (Flink 1.20 %s sink: %d checkpoints x %d writers into bucket(%d, id), %,d changes per writer and"
            + " checkpoint, %s key; generated in %.1f s): %s; live: %s%n%n%s%n",
        name,
        shape.formatVersion(),
        shape.mode() == FlinkUpsertTable.Mode.UPSERT ? "upsert" : "changelog",
        shape.checkpoints(),
        shape.writers(),
        shape.buckets(),
        shape.changesPerWriterPerCheckpoint(),
        shape.compositeKey() ? "composite" : "id",
        seconds,
        FlinkUpsertTable.Layout.of(table),
        rows,
        HEADER);
    out.flush();
  }

  void row(String size, int version, RewritePathChoice path, String process, Verified run) {
    JobRunFigures f = run.figures();
    String status;
    if (f.result() == null) {
      status = "failed (" + f.failure().replace('|', '/') + ")";
    } else {
      status =
          f.result().status().name().toLowerCase(Locale.ROOT)
              + (f.result().verification().verified()
                  ? ""
                  : " (not verified: " + f.result().verification().problems() + ")");
    }
    out.printf(
        Locale.ROOT,
        "| %s | v%d | %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s |%n",
        size,
        version,
        path.name().toLowerCase(Locale.ROOT),
        process,
        f.planSeconds(),
        f.rewriteSeconds(),
        f.commitSeconds(),
        f.totalSeconds(),
        figure(f.process().cpuSeconds(), "%.2f"),
        figure(f.process().peakRssMb(), "%.0f"),
        f.result() == null
            ? "-"
            : String.format(
                Locale.ROOT,
                "%.1f",
                f.result().rewrittenBytesCount() / (1024.0 * 1024) / f.totalSeconds()),
        f.groupMillisText(),
        f.pathsText(),
        status,
        run.liveRows());
    out.flush();
  }

  private static String figure(double value, String format) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
  }

  void footer(EndToEndBench.Settings settings, double freshStartupSeconds) {
    out.printf(
        Locale.ROOT,
        "%n%d workers; MB/s = input bytes rewritten / total wall time; 'fresh JVM' runs `icecompact compact` in a"
            + " new java process (%s), its plan time includes JVM start and class loading (`icecompact --version`"
            + " alone: %.2f s), its CPU s (user + system, every thread) and peak RSS (VmHWM) are the process's own,"
            + " reported by it at exit; 'warm JVM' runs the same job in the bench's JVM after %d warm-up run(s),"
            + " its CPU s is the bench JVM's over the run (no RSS: the JVM is the bench's); group ms"
            + " is each worker's own time for its group (median / 90th percentile); live rows are read back"
            + " with every delete applied and compared with the generated table's (count, multiset checksum)%n",
        settings.workers(),
        settings.javaOptions().isEmpty()
            ? "no JVM options: the JVM's default heap"
            : String.join(" ", settings.javaOptions()),
        freshStartupSeconds,
        settings.warmups());
    out.flush();
  }
}
