package io.icecompact.cli;

import io.icecompact.cli.bench.BenchReport;
import io.icecompact.cli.bench.CommitRaceBench;
import io.icecompact.cli.bench.EndToEndBench;
import io.icecompact.cli.bench.LatencyFileIO;
import io.icecompact.cli.bench.PathRuns;
import io.icecompact.cli.bench.ScaleBench;
import io.icecompact.cli.bench.SkippingBench;
import io.icecompact.cli.flags.FormatVersion;
import io.icecompact.cli.flags.OneOf;
import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code icecompact bench}: generates a fragmented table per shape, plans it once, and rewrites the
 * same groups with each rewrite path, thread count and prefetch setting, printing one table row per
 * run: wall time, MB/s, rows/s, peak heap and the path each group took. Nothing is committed; each
 * run's output files are deleted before the next.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Generate fragmented tables and compare the rewrite paths on the same groups.")
final class BenchCommand implements Callable<Integer> {
  @Option(
      names = "--files",
      split = ",",
      converter = WholeNumber.Positive.class,
      description =
          "Data files (default: "
              + DEFAULT_FILES
              + "); with --scale, the table sizes to build, e.g."
              + " 100000,1000000 (default: "
              + DEFAULT_SCALE_FILES
              + ")")
  List<Integer> files;

  static final String DEFAULT_FILES = "600";
  static final String DEFAULT_SCALE_FILES = "100000,1000000";

  @Option(
      names = "--partitions",
      defaultValue = "10",
      converter = WholeNumber.Positive.class,
      description = "Day partitions (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(
      names = "--rows-per-file",
      defaultValue = "12000",
      converter = WholeNumber.Positive.class,
      description = "Rows per file (default: ${DEFAULT-VALUE}, ~330 KB)")
  int rowsPerFile;

  @Option(
      names = "--delete-files",
      defaultValue = "200",
      converter = WholeNumber.NonNegative.class,
      description =
          "Files with every 50th row deleted by position, in the deletes shapes (default: ${DEFAULT-VALUE})")
  int deleteFiles;

  @Option(
      names = "--equality-deletes",
      defaultValue = "1000",
      converter = WholeNumber.NonNegative.class,
      description = "Ids deleted by equality, in the deletes shapes (default: ${DEFAULT-VALUE})")
  int equalityDeletes;

  @Option(
      names = "--format-version",
      defaultValue = "2",
      converter = FormatVersion.class,
      description = "Format version of the generated tables, 2 or 3 (default: ${DEFAULT-VALUE})")
  int formatVersion;

  @Option(
      names = {"--threads", "--workers"},
      split = ",",
      defaultValue = "1,2",
      converter = WholeNumber.Positive.class,
      description = "Worker thread counts to run, e.g. 1,2 (default: ${DEFAULT-VALUE})")
  List<Integer> threads;

  @Option(
      names = "--paths",
      split = ",",
      defaultValue = "GENERIC,AUTO",
      description = "Rewrite path choices to run (default: ${DEFAULT-VALUE})")
  List<RewritePathChoice> paths;

  @Option(
      names = "--shapes",
      split = ",",
      defaultValue = "deletes,no-deletes",
      converter = ShapeName.class,
      description =
          "Table shapes: 'deletes' (position deletes, and equality deletes of recent orders as a CDC"
              + " feed writes them), 'scattered-deletes' (equality-deleted ids drawn from every order: nearly every"
              + " file holds a deleted row), 'no-deletes' (default: ${DEFAULT-VALUE})")
  List<String> shapes;

  @Option(
      names = "--column-threads",
      split = ",",
      defaultValue = "1",
      converter = WholeNumber.Positive.class,
      description =
          "Threads each group's columnar copy uses for its columns, e.g. 1,2; a Lambda worker uses"
              + " its vCPUs this way (default: ${DEFAULT-VALUE})")
  List<Integer> columnThreads;

  @Option(
      names = "--warmups",
      defaultValue = "1",
      converter = WholeNumber.NonNegative.class,
      description =
          "Runs of each configuration before the measured ones, while the JIT compiles (default: ${DEFAULT-VALUE})")
  int warmups;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      converter = WholeNumber.Positive.class,
      description =
          "Measured runs of each configuration; the median is reported (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(
      names = "--prefetch",
      split = ",",
      defaultValue = "on",
      converter = PrefetchSetting.class,
      description = "Input prefetch settings to run: on, off or on,off (default: ${DEFAULT-VALUE})")
  List<String> prefetch;

  @Option(
      names = "--latency-ms",
      defaultValue = "0",
      converter = WholeNumber.NonNegativeLong.class,
      description =
          "Artificial delay of every read request, as object storage has (default: ${DEFAULT-VALUE})")
  long latencyMillis;

  @Option(
      names = "--memory",
      description =
          "Memory mode: one unpartitioned table rewritten as a single group on one thread; run it"
              + " with a bounded heap (ICECOMPACT_JAVA_OPTS=-Xmx...) to show the group fits")
  boolean memory;

  @Option(
      names = "--e2e",
      description =
          "End-to-end mode: build Spark-written streaming tables or Flink-written CDC tables (--sizes,"
              + " --format-versions) and time the whole compact job (plan, rewrite, commit) per --paths, in this JVM"
              + " and in a fresh one (with its CPU seconds and peak RSS)")
  boolean endToEnd;

  @Option(
      names = "--scale",
      description =
          "Scale mode: build metadata-only tables of --files data files (v2, up to 1,000 day partitions)"
              + " and measure planning and committing them, each in a fresh JVM of --scale-heap; no data file is read"
              + " or written")
  boolean scale;

  @Option(
      names = "--sort-orders",
      split = ";",
      paramLabel = "ORDER",
      description =
          "Also time strategy=sort with each sort order, ';'-separated (e.g. 'customer_id;zorder(customer_id,"
              + " ordered_at)'): the same groups sorted on one thread, per --paths: GENERIC sorts rows as records, AUTO"
              + " as columns (default: none)")
  List<String> sortOrders = List.of();

  @Option(
      names = "--sort-heap-bytes",
      paramLabel = "BYTES",
      description =
          "With --sort-orders: the heap each group may sort in; a group of more than 1/40 of it in Parquet"
              + " bytes is sorted in runs spilled to java.io.tmpdir, and the row counts them (default: the whole heap)")
  long sortHeapBytes;

  @Option(
      names = "--skipping",
      description =
          "Skipping mode: the same table compacted by bin-pack, sort and z-order into ~1 MB files,"
              + " and the files and bytes Iceberg's scan planning keeps for selective predicates")
  boolean skipping;

  @Option(
      names = "--commit-race",
      description =
          "Commit-race mode: a Flink-written CDC table (--race-table) compacted while a streaming writer"
              + " commits every --writer-every-ms on each of --catalogs, --rounds times each; per run the job's commit"
              + " attempts, what a lost one cost, the writer's commits meanwhile, and the live rows checked against the"
              + " writer's model")
  boolean commitRace;

  @Option(
      names = "--race-table",
      defaultValue = "upsert",
      paramLabel = "SIZE",
      description =
          "Commit-race mode: the CDC table, upsert (552 data files, 37 MB) or upsert-s (seconds to build)"
              + " (default: ${DEFAULT-VALUE})")
  String raceTable;

  @Option(
      names = "--writer-every-ms",
      split = ",",
      defaultValue = "1000,300,100",
      converter = WholeNumber.PositiveLong.class,
      description =
          "Commit-race mode: the racing writer's checkpoint intervals (default: ${DEFAULT-VALUE})")
  List<Long> writerEveryMillis;

  @Option(
      names = "--catalogs",
      split = ",",
      defaultValue = "jdbc,hadoop",
      description = "Commit-race mode: jdbc (SQLite) and/or hadoop (default: ${DEFAULT-VALUE})")
  List<String> raceCatalogs;

  @Option(
      names = "--scale-heap",
      defaultValue = "3g",
      converter = HeapSize.class,
      description =
          "Scale mode: the maximum heap (-Xmx) of the planner's and committer's fresh JVMs"
              + " (default: ${DEFAULT-VALUE})")
  String scaleHeap;

  @Option(
      names = "--sizes",
      split = ",",
      defaultValue = "S",
      converter = SizeName.class,
      description =
          "End-to-end table sizes: Spark-written S (30 days x 5 files x 10k rows, ~33 MB), M (30 x 40 x"
              + " 10k, ~264 MB) or DAYSxFILESxROWS; Flink-written CDC tables (bucket(4, id), 2 writers, equality and"
              + " position deletes): upsert (the issue's: 69 checkpoints, 552 data files, 37 MB, 1.33M equality-delete"
              + " keys), upsert-10x (690 checkpoints, 375 MB), changelog (-U/+U and -D, 65 checkpoints), upsert-s and"
              + " changelog-s (12 checkpoints, seconds to build) (default: ${DEFAULT-VALUE})")
  List<String> sizes;

  @Option(
      names = "--format-versions",
      split = ",",
      defaultValue = "2,3",
      converter = FormatVersion.class,
      description =
          "End-to-end format versions: 2 (position delete files) and/or 3 (deletion vectors; a CDC"
              + " table's equality deletes stay equality deletes) (default: ${DEFAULT-VALUE})")
  List<Integer> formatVersions;

  @Option(
      names = "--processes",
      split = ",",
      defaultValue = "warm,fresh",
      converter = ProcessKind.class,
      description =
          "End-to-end: 'warm' runs the job in this JVM after --warmups runs, 'fresh' runs"
              + " `icecompact compact` in a new JVM, which reports its CPU seconds and peak RSS at exit"
              + " (default: ${DEFAULT-VALUE})")
  List<String> processes;

  @Option(
      names = "--fresh-java-opts",
      defaultValue = "inherit",
      description =
          "End-to-end: JVM options of the fresh process; 'inherit' starts it as ./icecompact"
              + " started this one (its defaults or ICECOMPACT_JAVA_OPTS) (default: ${DEFAULT-VALUE})")
  String freshJavaOptions;

  @Option(
      names = "--codec",
      defaultValue = "zstd",
      converter = Codec.class,
      description =
          "End-to-end: codec of the Spark-written files, zstd (Iceberg's default) or snappy; CDC"
              + " tables are written with Iceberg's default, zstd (default: ${DEFAULT-VALUE})")
  CompressionCodecName codec;

  @Option(
      names = "--warehouse",
      paramLabel = "DIR",
      description = "Where to build the tables (default: a temporary directory)")
  Path warehouse;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if ((scale ? 1 : 0)
            + (endToEnd ? 1 : 0)
            + (memory ? 1 : 0)
            + (skipping ? 1 : 0)
            + (commitRace ? 1 : 0)
        > 1) {
      throw new ParameterException(
          spec.commandLine(),
          "Give at most one of --scale, --e2e, --memory, --skipping, --commit-race");
    }
    if (commitRace) {
      return commitRace(out, err);
    }
    if (!scale && files != null && files.size() > 1) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--files': several sizes need --scale, got " + files);
    }
    Path base = warehouse != null ? warehouse : Files.createTempDirectory("icecompact-bench-");
    if (endToEnd) {
      return endToEnd(base, out, err);
    }
    if (scale) {
      return scale(base, out, err);
    }
    if (skipping) {
      if (!new SkippingBench(base, out, err).run()) {
        err.println(
            "error: a compaction did not commit or changed the table's live rows (see the table)");
        return IcecompactCli.EXIT_JOB_NOT_DONE;
      }
      return 0;
    }
    BenchReport report = new BenchReport(out);
    for (String shape : memory ? List.of("deletes") : shapes) {
      FragmentedTable.Shape tableShape = shape(shape);
      Path dir = Files.createDirectories(base.resolve(memory ? "memory" : shape));
      Map<String, String> catalog = LocalWarehouse.catalogProperties(dir);
      long genStart = System.nanoTime();
      try (TableAccess access = new TableAccess(catalog)) {
        FragmentedTable.create(access.catalog(), TableIdentifier.parse(PathRuns.TABLE), tableShape);
      }
      err.printf(
          Locale.ROOT,
          "generated the '%s' table in %.1f s%n",
          shape,
          (System.nanoTime() - genStart) / 1e9);
      for (String sortOrder : sortOrders) {
        // one thread: a group sorted in memory may use the whole heap
        String label =
            shape
                + ", sort "
                + sortOrder
                + (sortHeapBytes > 0
                    ? String.format(Locale.ROOT, " (sort heap %,d MB)", sortHeapBytes >> 20)
                    : "");
        PathRuns sortRuns =
            new PathRuns(readCatalog(catalog), label, report, Map.of("sort-order", sortOrder));
        // generic: rows sorted as records; auto: as columns (the same sequence)
        for (RewritePathChoice path : paths) {
          sortRuns.run(path, limits(prefetch.get(0)), 1, 1, warmups, rounds, sortHeapBytes);
        }
      }
      PathRuns runs = new PathRuns(readCatalog(catalog), shape, report);
      for (int threadCount : memory ? List.of(1) : threads) {
        for (RewritePathChoice path : paths) {
          for (String setting : prefetch) {
            // the generic path copies rows on one thread: column threads change nothing for it
            for (int columns : path == RewritePathChoice.GENERIC ? List.of(1) : columnThreads) {
              runs.run(path, limits(setting), threadCount, columns, warmups, rounds);
            }
          }
        }
      }
    }
    report.footer(memory, Runtime.getRuntime().maxMemory(), warmups, rounds);
    out.flush();
    return 0;
  }

  private int commitRace(PrintWriter out, PrintWriter err) throws IOException {
    if (!CommitRaceBench.isCdcSize(raceTable)) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--race-table': a CDC table size (upsert, upsert-s, ...), got "
              + raceTable);
    }
    for (String catalog : raceCatalogs) {
      if (!List.of("jdbc", "hadoop").contains(catalog)) {
        throw new ParameterException(
            spec.commandLine(),
            "Invalid value for option '--catalogs': jdbc or hadoop, got " + catalog);
      }
    }
    Path base = warehouse != null ? warehouse : Files.createTempDirectory("icecompact-bench-");
    try {
      if (!new CommitRaceBench(base, out, err)
          .run(raceTable, raceCatalogs, writerEveryMillis, rounds)) {
        err.println("error: a run's live rows are not the writer's model (see the table)");
        return IcecompactCli.EXIT_JOB_NOT_DONE;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }

  /** 'inherit': this JVM's own options, so the fresh job starts as ./icecompact starts a user's. */
  private List<String> freshJavaOptions() {
    if (!"inherit".equals(freshJavaOptions.trim())) {
      return List.of(freshJavaOptions.trim().split("\\s+"));
    }
    return ManagementFactory.getRuntimeMXBean().getInputArguments();
  }

  /** Metadata-only tables of each --files size: planner and committer in fresh JVMs. */
  private int scale(Path base, PrintWriter out, PrintWriter err) {
    List<Integer> sizes =
        files != null
            ? files
            : Stream.of(DEFAULT_SCALE_FILES.split(",")).map(Integer::valueOf).toList();
    boolean done =
        new ScaleBench(base, new ScaleBench.Settings(sizes, List.of("-Xmx" + scaleHeap)), out, err)
            .run();
    out.flush();
    if (!done) {
      err.println(
          "error: a step failed or the committed snapshot is not what the job meant (see the tables)");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }

  /** The table size of the other modes: --files' one value. */
  private int fileCount() {
    return files != null ? files.get(0) : Integer.parseInt(DEFAULT_FILES);
  }

  /**
   * The whole job on Spark- or Flink-shaped tables; the runs use the largest --threads value as
   * workers.
   */
  private int endToEnd(Path base, PrintWriter out, PrintWriter err) {
    EndToEndBench.Settings settings =
        new EndToEndBench.Settings(
            sizes,
            formatVersions,
            paths,
            threads.stream().mapToInt(Integer::intValue).max().orElse(2),
            processes.contains("warm"),
            processes.contains("fresh"),
            warmups,
            freshJavaOptions(),
            codec);
    EndToEndBench bench = new EndToEndBench(base, settings, out, err);
    boolean rowsKept = bench.run();
    out.flush();
    if (!rowsKept) {
      err.println("error: a run changed the table's live rows (see 'live rows after')");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    if (!bench.allJobsDone()) {
      err.println("error: a run's job did not succeed (see 'status')");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }

  private FragmentedTable.Shape shape(String name) {
    boolean deletes;
    long equalityDeleteWindow;
    switch (name) {
      case "deletes" -> {
        deletes = true;
        // the newest file of each partition: updates and cancellations follow soon after an order
        equalityDeleteWindow = (long) rowsPerFile * Math.max(1, partitions);
      }
      case "scattered-deletes" -> {
        deletes = true;
        equalityDeleteWindow = 0;
      }
      case "no-deletes" -> {
        deletes = false;
        equalityDeleteWindow = 0;
      }
      default ->
          throw new IllegalStateException("--shapes is checked when parsed, got '" + name + "'");
    }
    if (memory) {
      // one partition: the planner makes one group of the whole table
      return new FragmentedTable.Shape(
          0,
          fileCount(),
          rowsPerFile,
          formatVersion,
          deleteFiles,
          equalityDeletes,
          false,
          equalityDeleteWindow);
    }
    int perPartition = Math.max(1, fileCount() / Math.max(1, partitions));
    return new FragmentedTable.Shape(
        partitions,
        perPartition,
        rowsPerFile,
        formatVersion,
        deletes ? deleteFiles : 0,
        deletes ? equalityDeletes : 0,
        true,
        equalityDeleteWindow);
  }

  /** The catalog the runs read through: the same warehouse, reads delayed when asked. */
  private Map<String, String> readCatalog(Map<String, String> catalog) {
    if (latencyMillis <= 0) {
      return catalog;
    }
    Map<String, String> delayed = new LinkedHashMap<>(catalog);
    delayed.put("io-impl", LatencyFileIO.class.getName());
    delayed.put(LatencyFileIO.LATENCY_MS, Long.toString(latencyMillis));
    return delayed;
  }

  private PrefetchLimits limits(String setting) {
    return "off".equals(setting)
        ? PrefetchLimits.OFF
        : PrefetchLimits.forHeap(Runtime.getRuntime().maxMemory());
  }

  /** A JVM heap size as -Xmx takes it: a whole number with an optional k, m or g. */
  static final class HeapSize implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      if (!value.matches("[1-9][0-9]*[kKmMgG]?")) {
        throw new TypeConversionException(
            "'" + value + "' is not a heap size such as 3g, 512m or 3221225472");
      }
      return value;
    }
  }

  static final class ShapeName extends OneOf {
    ShapeName() {
      super("deletes", "scattered-deletes", "no-deletes");
    }
  }

  static final class PrefetchSetting extends OneOf {
    PrefetchSetting() {
      super("on", "off");
    }
  }

  static final class ProcessKind extends OneOf {
    ProcessKind() {
      super("warm", "fresh");
    }
  }

  /** The codecs the Spark-shaped tables are written with. */
  static final class Codec implements ITypeConverter<CompressionCodecName> {
    @Override
    public CompressionCodecName convert(String value) {
      return switch (value) {
        case "zstd" -> CompressionCodecName.ZSTD;
        case "snappy" -> CompressionCodecName.SNAPPY;
        default -> throw new TypeConversionException("'" + value + "' is not one of zstd, snappy");
      };
    }
  }

  /** An end-to-end size name, checked by the size it names. */
  static final class SizeName implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        return EndToEndBench.checkSize(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
