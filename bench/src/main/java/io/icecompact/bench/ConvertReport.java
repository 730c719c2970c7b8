package io.icecompact.bench;

import io.icecompact.fixtures.FlinkUpsertTable;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * {@code bench convert}'s report: the table built, one row per contender and per scanned table
 * (medians of the runs, the spread of wall and CPU time), the targets with whether each is
 * met, and the live-row checks.
 */
final class ConvertReport {
  private static final double MB = 1024.0 * 1024;

  private final PrintWriter out;

  ConvertReport(PrintWriter out) {
    this.out = out;
  }

  void table(
      ConvertBench.Settings settings,
      ConvertTable.Built built,
      double buildSeconds,
      LiveRowChecksum rows) {
    out.printf(
        Locale.ROOT,
        "bench convert: format version %d, %d workers, %d runs (medians; min-max of wall and CPU)%n",
        settings.formatVersion(),
        settings.workers(),
        settings.runs());
    out.printf(Locale.ROOT, "table %s%n", settings.size());
    out.printf(
        Locale.ROOT,
        "  compacted once: %d data files, %.1f MB (%.1f MB each on average)%n",
        built.compactedFiles(),
        built.compactedBytes() / MB,
        built.compactedBytes() / MB / Math.max(1, built.compactedFiles()));
    out.printf(Locale.ROOT, "  before: %s; built in %.0f s%n", built.layout(), buildSeconds);
    out.printf(
        Locale.ROOT,
        "  key column chunks (the files' column sizes): %.1f MB, %.1f%% of the data files' bytes:"
            + " the least reading every data file's keys reads%n",
        built.keyBytes() / MB,
        100.0 * built.keyBytes() / built.layout().dataBytes());
    out.printf(Locale.ROOT, "  live rows: %s%n", rows);
    out.println(
        "bytes read: counted on the streams of the catalog's FileIO (io-impl CountingFileIO) in the"
            + " child process, data and delete files of the table as the run started; rchar: the"
            + " child's /proc/self/io, everything it read (jars included)");
    out.flush();
  }

  void contenders(
      List<ConvertBench.ContenderRun> rewrites,
      List<ConvertBench.ContenderRun> converts,
      List<ConvertBench.ContenderRun> smallThenConverts,
      Map<String, String> smallFilesOnly) {
    out.println(
        "| contender | wall s | job s | CPU s | job CPU s | peak RSS MB | heap after GC MB | data read MB |"
            + " delete read MB | other read MB | rchar MB | streams opened (data/delete/other) |"
            + " written MB (files) | eq. delete files left | pos. delete files / DVs left | status |");
    out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    contender("rewrite", rewrites);
    contender("convert", converts);
    contender(ConvertBench.SMALL_THEN_CONVERT, smallThenConverts);
    out.printf(
        Locale.ROOT,
        "%s: a compaction of the small files only (%s), then convert; two fresh JVMs, their"
            + " figures summed (peak RSS: the larger)%n",
        ConvertBench.SMALL_THEN_CONVERT,
        smallFilesOnly.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", ")));
    out.flush();
  }

  private void contender(String name, List<ConvertBench.ContenderRun> runs) {
    List<ChildFigures> children = runs.stream().map(ConvertBench.ContenderRun::child).toList();
    ConvertBench.ContenderRun last = runs.get(runs.size() - 1);
    FlinkUpsertTable.Layout left = last.after();
    out.printf(
        Locale.ROOT,
        "| %s | %s | %.1f | %s | %.1f | %.0f | %.0f | %.1f | %.1f | %.1f | %.0f | %.0f / %.0f / %.0f |"
            + " %.1f (%.0f) | %d | %d / %d | %s |%n",
        name,
        spread(children, ChildFigures::wallSeconds),
        median(children, ChildFigures::actionSeconds),
        spread(children, c -> c.process().cpuSeconds()),
        median(children, c -> c.figure("action-cpu-ns") / 1e9),
        median(children, c -> c.process().peakRssMb()),
        median(children, c -> c.figure("heap-after-gc") / MB),
        median(children, c -> c.figure("data-bytes") / MB),
        median(children, c -> c.figure("delete-bytes") / MB),
        median(children, c -> c.figure("other-bytes") / MB),
        median(children, c -> c.figure("rchar") / MB),
        median(children, c -> c.figure("data-opens")),
        median(children, c -> c.figure("delete-opens")),
        median(children, c -> c.figure("other-opens")),
        median(runs, r -> r.bytesWritten() / MB),
        median(runs, r -> r.filesWritten()),
        left.equalityDeleteFiles(),
        left.positionDeleteFiles(),
        left.deletionVectors(),
        String.join(
            ", ",
            runs.stream()
                .map(
                    r ->
                        r.steps().stream()
                            .map(
                                c ->
                                    c.result() == null
                                        ? "no result"
                                        : c.result().status().toString())
                            .collect(Collectors.joining(" + ")))
                .distinct()
                .toList()));
    for (ChildFigures step : last.steps()) {
      ownCounts(name, step);
    }
  }

  private void ownCounts(String name, ChildFigures step) {
    if (step.result() != null && step.result().conversion() != null) {
      var conversion = step.result().conversion();
      out.printf(
          Locale.ROOT,
          "|   %s's own counts | converted equality delete files %d, kept %d; added position"
              + " delete files / DVs %d; deleted positions %,d; data files converted %d; bytes"
              + " read (its streams) %.1f MB |%n",
          name,
          conversion.convertedEqualityDeleteFilesCount(),
          conversion.keptEqualityDeleteFilesCount(),
          conversion.addedPositionDeleteFilesCount(),
          conversion.deletedPositionsCount(),
          conversion.convertedDataFilesCount(),
          conversion.bytesReadCount() / MB);
    } else if (step.result() != null) {
      var result = step.result();
      out.printf(
          Locale.ROOT,
          "|   %s's own counts | rewritten data files %d (%.1f MB), added %d, removed delete files"
              + " %d |%n",
          name,
          result.rewrittenDataFilesCount(),
          result.rewrittenBytesCount() / MB,
          result.addedDataFilesCount(),
          result.removedDeleteFilesCount());
    }
  }

  void scans(
      List<ChildFigures> before,
      List<ChildFigures> rewrite,
      List<ChildFigures> convert,
      List<ChildFigures> smallThenConvert) {
    out.println(
        "Full scan with Iceberg's generic reader (IcebergGenerics.read(table).build(), rows"
            + " counted), each in a fresh JVM: a reader that is not Spark, applying each delete"
            + " row by row.");
    out.println(
        "| table | wall s | scan s | CPU s | peak RSS MB | data read MB | delete read MB |"
            + " streams opened (data/delete) | rows |");
    out.println("|---|---|---|---|---|---|---|---|---|");
    scan("before", before);
    scan("after rewrite", rewrite);
    scan("after convert", convert);
    scan("after " + ConvertBench.SMALL_THEN_CONVERT, smallThenConvert);
    out.flush();
  }

  private void scan(String name, List<ChildFigures> runs) {
    out.printf(
        Locale.ROOT,
        "| %s | %s | %s | %s | %.0f | %.1f | %.1f | %.0f / %.0f | %,d |%n",
        name,
        spread(runs, ChildFigures::wallSeconds),
        spread(runs, ChildFigures::actionSeconds),
        spread(runs, c -> c.process().cpuSeconds()),
        median(runs, c -> c.process().peakRssMb()),
        median(runs, c -> c.figure("data-bytes") / MB),
        median(runs, c -> c.figure("delete-bytes") / MB),
        median(runs, c -> c.figure("data-opens")),
        median(runs, c -> c.figure("delete-opens")),
        runs.get(0).figure("rows"));
  }

  /** The same scans by Spark, the reader. */
  void sparkScans(
      String label,
      List<ChildFigures> before,
      List<ChildFigures> rewrite,
      List<ChildFigures> convert,
      List<ChildFigures> smallThenConvert) {
    out.printf(
        Locale.ROOT,
        "Full scan with %s, each in a fresh JVM (C2, 1 GB heap): every column of every live row"
            + " read and hashed (count(*), sum(xxhash64(*))); a first query in the new session"
            + " with the executor cache of delete files off (it warms compiled and generated"
            + " code, and caches no delete), then the same query with Spark's defaults (the"
            + " table before: one query, Spark's defaults):%n",
        label);
    out.println(
        "| table | wall s | CPU s | first query s | its CPU s | second query s | its CPU s |"
            + " peak RSS MB | rows |");
    out.println("|---|---|---|---|---|---|---|---|---|");
    sparkScan("before", before);
    sparkScan("after rewrite", rewrite);
    sparkScan("after convert", convert);
    sparkScan("after " + ConvertBench.SMALL_THEN_CONVERT, smallThenConvert);
    out.flush();
  }

  private void sparkScan(String name, List<ChildFigures> runs) {
    boolean again = runs.get(0).figure("action-ns") >= 0; // the table before is scanned once
    out.printf(
        Locale.ROOT,
        "| %s | %s | %s | %s | %.1f | %s | %s | %.0f | %,d |%n",
        name,
        spread(runs, ChildFigures::wallSeconds),
        spread(runs, c -> c.process().cpuSeconds()),
        spread(runs, c -> c.figure("first-ns") / 1e9),
        median(runs, c -> c.figure("first-cpu-ns") / 1e9),
        again ? spread(runs, ChildFigures::actionSeconds) : "-",
        again
            ? String.format(Locale.ROOT, "%.1f", median(runs, c -> c.figure("action-cpu-ns") / 1e9))
            : "-",
        median(runs, c -> c.process().peakRssMb()),
        runs.get(0).figure("rows"));
  }

  void noSpark(String why) {
    out.printf(
        Locale.ROOT,
        "No Spark scan: %s. The generic reader's scans stand in for the issue's Spark scan;"
            + " they are not Spark figures.%n",
        why);
    out.flush();
  }

  void sparkTarget(
      String label,
      String contender,
      List<ChildFigures> afterRewrite,
      List<ChildFigures> afterConvert) {
    sparkTarget(
        label,
        contender,
        "first query, delete file cache off",
        "first-ns",
        "first-cpu-ns",
        afterRewrite,
        afterConvert);
    sparkTarget(
        label,
        contender,
        "second query, Spark's defaults",
        "action-ns",
        "action-cpu-ns",
        afterRewrite,
        afterConvert);
    out.flush();
  }

  private void sparkTarget(
      String label,
      String contender,
      String query,
      String wallFigure,
      String cpuFigure,
      List<ChildFigures> afterRewrite,
      List<ChildFigures> afterConvert) {
    double scan =
        median(afterConvert, c -> c.figure(wallFigure))
            / median(afterRewrite, c -> c.figure(wallFigure));
    double scanCpu =
        median(afterConvert, c -> c.figure(cpuFigure))
            / median(afterRewrite, c -> c.figure(cpuFigure));
    out.printf(
        Locale.ROOT,
        "  Spark scan after %s / Spark scan after rewrite (%s, %s): %.2fx, target <= 1.5x:"
            + " %s; by the query's CPU: %.2fx%n",
        contender,
        label,
        query,
        scan,
        scan <= 1.5 ? "met" : "NOT met",
        scanCpu);
  }

  /** The targets for {@code name} against the whole rewrite. */
  void targets(
      String name,
      List<ConvertBench.ContenderRun> rewrites,
      List<ConvertBench.ContenderRun> converts,
      List<ChildFigures> scansAfterRewrite,
      List<ChildFigures> scansAfterConvert) {
    List<ChildFigures> rewrite = rewrites.stream().map(ConvertBench.ContenderRun::child).toList();
    List<ChildFigures> convert = converts.stream().map(ConvertBench.ContenderRun::child).toList();
    double bytes =
        median(convert, ChildFigures::tableBytesRead)
            / median(rewrite, ChildFigures::tableBytesRead);
    double dataBytes =
        median(convert, c -> c.figure("data-bytes")) / median(rewrite, c -> c.figure("data-bytes"));
    double cpu =
        median(convert, c -> c.process().cpuSeconds())
            / median(rewrite, c -> c.process().cpuSeconds());
    double jobCpu =
        median(convert, c -> c.figure("action-cpu-ns"))
            / median(rewrite, c -> c.figure("action-cpu-ns"));
    double scanCpu =
        median(scansAfterConvert, c -> c.figure("action-cpu-ns"))
            / median(scansAfterRewrite, c -> c.figure("action-cpu-ns"));
    double scan =
        median(scansAfterConvert, ChildFigures::actionSeconds)
            / median(scansAfterRewrite, ChildFigures::actionSeconds);
    out.printf(Locale.ROOT, "Issue 27's targets for %s (medians):%n", name);
    out.printf(
        Locale.ROOT,
        "  %s bytes read / rewrite bytes read (data + delete files): %.1f%% (data files"
            + " only: %.1f%%), target <= 10%%: %s%n",
        name,
        bytes * 100,
        dataBytes * 100,
        bytes <= 0.10 ? "met" : "NOT met");
    out.printf(
        Locale.ROOT,
        "  %s CPU / rewrite CPU (whole process): %.1f%%, target <= 20%%: %s; the jobs alone"
            + " (JVM start and table load left out): %.1f%%: %s%n",
        name,
        cpu * 100,
        cpu <= 0.20 ? "met" : "NOT met",
        jobCpu * 100,
        jobCpu <= 0.20 ? "met" : "NOT met");
    out.printf(
        Locale.ROOT,
        "  scan after %s / scan after rewrite (generic reader, not Spark): %.2fx, target <="
            + " 1.5x: %s; by the scans' CPU: %.2fx%n",
        name,
        scan,
        scan <= 1.5 ? "met" : "NOT met",
        scanCpu);
    out.flush();
  }

  /** The jobs in a JVM that ran the same job once before (on a registered copy of the table). */
  void warmJobs(
      List<ConvertBench.ContenderRun> rewrites, List<ConvertBench.ContenderRun> converts) {
    out.println(
        "Each job again in a JVM that first ran the same job on a copy of the table registered"
            + " beside it (compiled code and loaded classes warm, as in a reused Lambda worker);"
            + " the job's own figures:");
    out.println("| contender | job s | job CPU s | data read MB | delete read MB | status |");
    out.println("|---|---|---|---|---|---|");
    warmRow("rewrite (warm JVM)", rewrites);
    warmRow("convert (warm JVM)", converts);
    out.flush();
  }

  private void warmRow(String name, List<ConvertBench.ContenderRun> runs) {
    List<ChildFigures> children = runs.stream().map(ConvertBench.ContenderRun::child).toList();
    out.printf(
        Locale.ROOT,
        "| %s | %s | %s | %.1f | %.1f | %s |%n",
        name,
        spread(children, ChildFigures::actionSeconds),
        spread(children, c -> c.figure("action-cpu-ns") / 1e9),
        median(children, c -> c.figure("data-bytes") / MB),
        median(children, c -> c.figure("delete-bytes") / MB),
        children.stream()
            .map(c -> c.result() == null ? "NO RESULT" : c.result().status().toString())
            .distinct()
            .reduce((a, b) -> a + "/" + b)
            .orElse(""));
  }

  void warmTarget(
      List<ConvertBench.ContenderRun> rewrites, List<ConvertBench.ContenderRun> converts) {
    double warmCpu =
        median(converts, c -> c.child().figure("action-cpu-ns"))
            / median(rewrites, c -> c.child().figure("action-cpu-ns"));
    out.printf(
        Locale.ROOT,
        "  convert CPU / rewrite CPU, the jobs in a warm JVM: %.1f%%, target <= 20%%: %s%n",
        warmCpu * 100,
        warmCpu <= 0.20 ? "met" : "NOT met");
    out.flush();
  }

  void checks(LiveRowChecksum before, List<String> checks, boolean allSame) {
    out.printf(Locale.ROOT, "live rows before: %s%n", before);
    checks.forEach(check -> out.println("live rows " + check));
    out.println(
        allSame
            ? "live rows: identical before, after rewrite, after convert and after "
                + ConvertBench.SMALL_THEN_CONVERT
            : "live rows: CHANGED (see above)");
    out.flush();
  }

  private static <T> double median(List<T> runs, ToDoubleFunction<T> figure) {
    double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
    return values.length % 2 == 1
        ? values[values.length / 2]
        : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
  }

  /** "median (min-max)" of a time. */
  private static <T> String spread(List<T> runs, ToDoubleFunction<T> figure) {
    double[] values = runs.stream().mapToDouble(figure).toArray();
    return String.format(
        Locale.ROOT,
        "%.1f (%.1f-%.1f)",
        median(runs, figure),
        Arrays.stream(values).min().orElse(Double.NaN),
        Arrays.stream(values).max().orElse(Double.NaN));
  }
}
