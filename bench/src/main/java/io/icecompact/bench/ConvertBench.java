package io.icecompact.bench;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.LocalWarehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterable;

/**
 * {@code bench convert}, issue 27's benchmark: on a Flink upsert table compacted once into big
 * files and then given more checkpoints of upserts ({@link ConvertTable}), a compaction of the
 * whole table (rewrite) against convert-equality-deletes (convert) and against a compaction of the
 * small files followed by a conversion ({@value #SMALL_THEN_CONVERT}), each on its own copy of the
 * table and in fresh JVMs ({@link ConvertBenchChild}); then a full scan of the table before and
 * after each, in a fresh JVM with Iceberg's generic reader and with Spark. Every run's live rows
 * are checked against the built table's ({@link LiveRowChecksum}).
 */
final class ConvertBench {
  static final String TABLE = "bench.upserts";

  /**
   * The rewrite's options: the compaction's target, and every file with a delete picked (Iceberg's
   * planner picks a file by its deletes only at {@code delete-file-threshold} delete files; a big
   * file is also picked as below the target's 75%).
   */
  static final Map<String, String> REWRITE_OPTIONS =
      Map.of("target-file-size-bytes", ConvertTable.TARGET_FILE_SIZE, "delete-file-threshold", "1");

  /** What to run. */
  record Settings(
      ConvertTable.Size size, int formatVersion, int runs, int workers, List<String> javaOptions) {}

  /**
   * The third contender's name: the small files compacted (Iceberg's planner picking only files
   * under half the first compaction's mean file size, their deletes applied as they are merged),
   * then the equality deletes that still apply, now only to the big files, converted.
   */
  static final String SMALL_THEN_CONVERT = "compact small + convert";

  /**
   * One contender's run: its processes summed ({@code child}) and each ({@code steps}: one per
   * job), then the table it left.
   */
  record ContenderRun(
      ChildFigures child,
      List<ChildFigures> steps,
      FlinkUpsertTable.Layout after,
      long bytesWritten,
      long filesWritten) {}

  private final Path base;
  private final Settings settings;
  private final ConvertReport report;
  private final PrintWriter err;
  private final Optional<SparkScanner> spark;
  private final String noSparkBecause;
  private boolean rowsKept = true;
  private Long firstSparkChecksum;
  private boolean jobsDone = true;

  ConvertBench(Path base, Settings settings, PrintWriter out, PrintWriter err) {
    this.base = base;
    this.settings = settings;
    this.report = new ConvertReport(out);
    this.err = err;
    StringBuilder whyNot = new StringBuilder();
    this.spark = SparkScanner.built(whyNot);
    this.noSparkBecause = whyNot.toString();
  }

  /** False when a run changed the live rows or a job did not succeed (the report says which). */
  boolean run() {
    Path work = base.resolve("convert-v" + settings.formatVersion());
    Path original = base.resolve("convert-v" + settings.formatVersion() + "-original");
    Map<String, String> catalog = LocalWarehouse.catalogProperties(work);
    createDirectories(work);
    long start = System.nanoTime();
    ConvertTable.Built built =
        ConvertTable.build(
            catalog, TABLE, settings.size(), settings.formatVersion(), () -> compactOnce(catalog));
    double buildSeconds = (System.nanoTime() - start) / 1e9;
    progress("built the table in %.1f s: %s; reading its live rows...", buildSeconds, built);
    LiveRowChecksum before = checksum(catalog);
    TableDirCopy.copy(work, original);
    report.table(settings, built, buildSeconds, before);

    List<ChildFigures> scansBefore = new ArrayList<>();
    List<ContenderRun> rewrites = new ArrayList<>();
    List<ChildFigures> scansAfterRewrite = new ArrayList<>();
    List<ContenderRun> converts = new ArrayList<>();
    List<ChildFigures> scansAfterConvert = new ArrayList<>();
    List<ChildFigures> sparkBefore = new ArrayList<>();
    List<ChildFigures> sparkAfterRewrite = new ArrayList<>();
    List<ChildFigures> sparkAfterConvert = new ArrayList<>();
    List<ContenderRun> smallThenConverts = new ArrayList<>();
    List<ChildFigures> scansAfterSmallThenConvert = new ArrayList<>();
    List<ChildFigures> sparkAfterSmallThenConvert = new ArrayList<>();
    Map<String, String> smallFilesOnly = smallFilesOnly(built);
    List<ContenderRun> warmRewrites = new ArrayList<>();
    List<ContenderRun> warmConverts = new ArrayList<>();
    List<String> checks = new ArrayList<>();
    for (int run = 1; run <= settings.runs(); run++) {
      // interleaved, so a noisy neighbour's minute spreads over both contenders
      TableDirCopy.copy(original, work);
      scansBefore.add(scan(catalog, "before", run));
      sparkScan(catalog, "before", run, before, sparkBefore, checks);
      rewrites.add(contender(catalog, "rewrite", REWRITE_OPTIONS, run));
      scansAfterRewrite.add(scan(catalog, "after rewrite", run));
      sparkScan(catalog, "after rewrite", run, before, sparkAfterRewrite, checks);
      checks.add(check(catalog, "after rewrite", run, before));
      TableDirCopy.copy(original, work);
      converts.add(contender(catalog, "convert", Map.of(), run));
      scansAfterConvert.add(scan(catalog, "after convert", run));
      sparkScan(catalog, "after convert", run, before, sparkAfterConvert, checks);
      checks.add(check(catalog, "after convert", run, before));
      String afterBoth = "after " + SMALL_THEN_CONVERT;
      TableDirCopy.copy(original, work);
      smallThenConverts.add(
          contender(
              catalog,
              SMALL_THEN_CONVERT,
              List.of(Map.entry("rewrite", smallFilesOnly), Map.entry("convert", Map.of())),
              run));
      scansAfterSmallThenConvert.add(scan(catalog, afterBoth, run));
      sparkScan(catalog, afterBoth, run, before, sparkAfterSmallThenConvert, checks);
      checks.add(check(catalog, afterBoth, run, before));
      // each job again in a JVM that ran it once already (on a registered copy): the per-row costs
      // without the compiling and class loading every fresh JVM pays
      TableDirCopy.copy(original, work);
      warmRewrites.add(
          contender(catalog, "rewrite" + ConvertBenchChild.WARM, REWRITE_OPTIONS, run));
      checks.add(check(catalog, "after rewrite in a warm JVM", run, before));
      TableDirCopy.copy(original, work);
      warmConverts.add(contender(catalog, "convert" + ConvertBenchChild.WARM, Map.of(), run));
      checks.add(check(catalog, "after convert in a warm JVM", run, before));
    }
    report.contenders(rewrites, converts, smallThenConverts, smallFilesOnly);
    report.warmJobs(warmRewrites, warmConverts);
    report.scans(scansBefore, scansAfterRewrite, scansAfterConvert, scansAfterSmallThenConvert);
    spark.ifPresentOrElse(
        scanner ->
            report.sparkScans(
                scanner.label(),
                sparkBefore,
                sparkAfterRewrite,
                sparkAfterConvert,
                sparkAfterSmallThenConvert),
        () -> report.noSpark(noSparkBecause));
    report.targets("convert", rewrites, converts, scansAfterRewrite, scansAfterConvert);
    spark.ifPresent(
        scanner ->
            report.sparkTarget(scanner.label(), "convert", sparkAfterRewrite, sparkAfterConvert));
    report.warmTarget(warmRewrites, warmConverts);
    report.targets(
        SMALL_THEN_CONVERT,
        rewrites,
        smallThenConverts,
        scansAfterRewrite,
        scansAfterSmallThenConvert);
    spark.ifPresent(
        scanner ->
            report.sparkTarget(
                scanner.label(),
                SMALL_THEN_CONVERT,
                sparkAfterRewrite,
                sparkAfterSmallThenConvert));
    report.checks(before, checks, rowsKept);
    return rowsKept && jobsDone;
  }

  private ContenderRun contender(
      Map<String, String> catalog, String action, Map<String, String> options, int run) {
    return contender(catalog, action, List.of(Map.entry(action, options)), run);
  }

  /** A contender of one or more jobs (action, options), each in a fresh JVM, one after another. */
  private ContenderRun contender(
      Map<String, String> catalog,
      String name,
      List<Map.Entry<String, Map<String, String>>> jobs,
      int run) {
    progress("run %d: %s...", run, name);
    Map<String, Long> filesBefore = liveFiles(catalog);
    List<ChildFigures> steps = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> job : jobs) {
      ChildFigures child =
          ChildFigures.run(settings.javaOptions(), args(job.getKey(), catalog, job.getValue()));
      steps.add(child);
      boolean done = child.result() != null && child.result().status().success();
      if (!done) {
        err.printf(
            Locale.ROOT,
            "error: run %d: %s: %s ended %s: %s%n",
            run,
            name,
            job.getKey(),
            child.result() == null ? "without a result" : child.result().status(),
            child.result() == null ? "" : child.result().reason());
      }
      jobsDone &= done;
    }
    ChildFigures child = steps.stream().reduce(ChildFigures::then).orElseThrow();
    Map<String, Long> filesAfter = liveFiles(catalog);
    filesAfter.keySet().removeAll(filesBefore.keySet());
    FlinkUpsertTable.Layout layout;
    try (TableAccess access = new TableAccess(catalog)) {
      layout = FlinkUpsertTable.Layout.of(access.loadTable(TABLE));
    }
    return new ContenderRun(
        child,
        steps,
        layout,
        filesAfter.values().stream().mapToLong(Long::longValue).sum(),
        filesAfter.size());
  }

  /**
   * The small-file compaction's options: the target of the other rewrite, and only files under half
   * the first compaction's mean size picked (Iceberg's {@code min-file-size-bytes}); the big files,
   * whose only deletes are equality deletes, are left to the conversion.
   */
  private static Map<String, String> smallFilesOnly(ConvertTable.Built built) {
    long meanCompacted = built.compactedBytes() / Math.max(1, built.compactedFiles());
    return Map.of(
        "target-file-size-bytes",
        ConvertTable.TARGET_FILE_SIZE,
        "min-file-size-bytes",
        Long.toString(meanCompacted / 2));
  }

  private void compactOnce(Map<String, String> catalog) {
    progress("loaded; compacting it once...");
    ChildFigures first =
        ChildFigures.run(
            settings.javaOptions(), args("rewrite", catalog, ConvertTable.FIRST_COMPACTION));
    if (first.result() == null || !first.result().status().success()) {
      throw new IllegalStateException(
          "The first compaction did not succeed: "
              + (first.result() == null
                  ? "no result"
                  : first.result().status() + " " + first.result().reason()));
    }
  }

  private ChildFigures scan(Map<String, String> catalog, String which, int run) {
    progress("run %d: scan %s...", run, which);
    return ChildFigures.run(settings.javaOptions(), args("scan", catalog, Map.of()));
  }

  /**
   * A full scan by Spark, when it is built: its row count must be the live rows', and its checksum
   * (Spark's own hash of every column) the same in every scan, so Spark reads the deletes each
   * contender left as Iceberg's generic reader does.
   */
  private void sparkScan(
      Map<String, String> catalog,
      String which,
      int run,
      LiveRowChecksum live,
      List<ChildFigures> scans,
      List<String> checks) {
    if (spark.isEmpty()) {
      return;
    }
    progress("run %d: Spark scan %s...", run, which);
    // the table before is scanned once: its equality deletes are the slow path the others remove,
    // and Spark reads them without its delete file cache for minutes
    ChildFigures scan =
        spark.get().scan(catalog, TABLE, settings.workers(), !"before".equals(which));
    scans.add(scan);
    if (firstSparkChecksum == null) {
      firstSparkChecksum = scan.figure("checksum");
    }
    boolean same =
        scan.figure("rows") == live.rows() && scan.figure("checksum") == firstSparkChecksum;
    rowsKept &= same;
    checks.add(
        String.format(
            Locale.ROOT,
            "run %d %s, read by Spark: %s%,d rows, checksum %016x",
            run,
            which,
            same ? "same: " : "CHANGED: ",
            scan.figure("rows"),
            scan.figure("checksum")));
  }

  private String check(Map<String, String> catalog, String which, int run, LiveRowChecksum before) {
    LiveRowChecksum after = checksum(catalog);
    boolean same = after.equals(before);
    rowsKept &= same;
    return String.format(
        Locale.ROOT,
        "run %d %s: %s",
        run,
        which,
        same ? "same " + after : "CHANGED: " + after + " (before: " + before + ")");
  }

  private List<String> args(
      String action, Map<String, String> catalog, Map<String, String> options) {
    List<String> args =
        new ArrayList<>(List.of(action, TABLE, Integer.toString(settings.workers())));
    catalog.forEach((key, value) -> args.add(key + "=" + value));
    args.add("--");
    options.forEach((key, value) -> args.add(key + "=" + value));
    return args;
  }

  private static LiveRowChecksum checksum(Map<String, String> catalog) {
    try (TableAccess access = new TableAccess(catalog)) {
      return LiveRowChecksum.of(access.loadTable(TABLE));
    }
  }

  /**
   * The table's live data and delete files and their sizes, by location (a Puffin file of deletion
   * vectors once).
   */
  private static Map<String, Long> liveFiles(Map<String, String> catalog) {
    Map<String, Long> files = new HashMap<>();
    try (TableAccess access = new TableAccess(catalog);
        CloseableIterable<FileScanTask> tasks = access.loadTable(TABLE).newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.put(task.file().location(), task.file().fileSizeInBytes());
        for (ContentFile<?> delete : task.deletes()) {
          files.put(delete.location(), delete.fileSizeInBytes());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private void progress(String format, Object... args) {
    err.printf(Locale.ROOT, format + "%n", args);
    err.flush();
  }

  private static void createDirectories(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
