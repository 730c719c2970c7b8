package io.icecompact.bench.spark;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A full scan of one Iceberg table by Spark with Iceberg's Spark runtime, in a process of its own
 * (the bench's {@code ConvertBench} starts it): every column of every live row read, deletes
 * applied by Spark's reader, and hashed into an order-free checksum, so two scans of the same live
 * rows print the same figures whatever files hold them.
 *
 * <p>Arguments: {@code TABLE THREADS AGAIN key=value...}: the table's name in the catalog, Spark's
 * task threads, whether to scan a second time, and the catalog's properties as icecompact's jobs
 * get them. Prints one line of figures on stdout, {@value #PREFIX} {@code rows= checksum=
 * session-ns= first-ns= first-cpu-ns= action-ns= action-cpu-ns=}: the table scanned once or twice,
 * the second (action, -1 when not run) in the warm session, and the process's own CPU time and peak
 * RSS on stderr at exit, in the form icecompact's {@code ExitFigures} prints and parses.
 */
public final class SparkScan {
  /** The figures line's start, {@code ConvertBenchChild}'s: the bench parses both alike. */
  static final String PREFIX = "convert-bench-child:";

  /** {@code io.icecompact.cli.ExitFigures}' line (this module cannot depend on the CLI's jar). */
  static final String EXIT_PREFIX = "icecompact-exit-figures:";

  /** Iceberg's session property (SparkSQLProperties) that lets readers cache delete files. */
  static final String DELETE_FILE_CACHE = "spark.sql.iceberg.executor-cache.delete-files.enabled";

  /** The catalog's name in Spark: icecompact's jobs name their catalog so too. */
  static final String CATALOG = "icecompact";

  private SparkScan() {}

  public static void main(String[] args) throws Exception {
    Runtime.getRuntime().addShutdownHook(new Thread(SparkScan::printExitFigures));
    String table = args[0];
    int threads = Integer.parseInt(args[1]);
    boolean again = Boolean.parseBoolean(args[2]);
    Map<String, String> catalog = new LinkedHashMap<>();
    for (int i = 3; i < args.length; i++) {
      String[] pair = args[i].split("=", 2);
      catalog.put(pair[0], pair[1]);
    }
    // icecompact's local FileIO is not on Spark's class path; Iceberg's default for a path without
    // a scheme, HadoopFileIO, reads the same local files
    catalog.remove("io-impl");

    long start = System.nanoTime();
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[" + threads + "]")
            .appName("icecompact bench scan")
            .config("spark.ui.enabled", "false")
            .config("spark.log.level", "WARN")
            .config("spark.sql.shuffle.partitions", Integer.toString(threads))
            .config("spark.sql.catalog." + CATALOG, "org.apache.iceberg.spark.SparkCatalog");
    catalog.forEach(
        (key, value) -> builder.config("spark.sql.catalog." + CATALOG + "." + key, value));
    try (SparkSession spark = builder.getOrCreate()) {
      long session = System.nanoTime() - start;
      Scan first;
      Scan warm;
      if (again) {
        // The first query warms the JIT and Spark's generated code without filling the executor
        // cache of delete files; the second runs with Spark's defaults, as a user's query in a
        // running session that has not read this table's deletes before.
        spark.conf().set(DELETE_FILE_CACHE, "false");
        first = Scan.of(spark, table);
        spark.conf().unset(DELETE_FILE_CACHE);
        warm = Scan.of(spark, table);
      } else {
        first = Scan.of(spark, table);
        warm = new Scan(first.rows, first.checksum, -1, -1);
      }
      if (warm.rows != first.rows || warm.checksum != first.checksum) {
        throw new IllegalStateException("Two scans of one snapshot disagree");
      }
      System.out.printf(
          Locale.ROOT,
          "%s rows=%d checksum=%d session-ns=%d first-ns=%d first-cpu-ns=%d action-ns=%d"
              + " action-cpu-ns=%d%n",
          PREFIX,
          first.rows,
          first.checksum,
          session,
          first.nanos,
          first.cpu,
          warm.nanos,
          warm.cpu);
      System.out.flush();
    }
  }

  /** One full scan: rows, checksum, wall and CPU time. */
  private record Scan(long rows, long checksum, long nanos, long cpu) {
    static Scan of(SparkSession spark, String table) {
      long start = System.nanoTime();
      long cpuStart = cpuNanos();
      // a sum of each row's 64-bit hash, as a decimal so that Spark's ANSI mode does not refuse the
      // overflow; its low 64 bits are the checksum (a multiset's: duplicates count)
      Row row =
          spark
              .table(CATALOG + "." + table)
              .selectExpr("count(*) AS n", "sum(cast(xxhash64(*) AS decimal(38, 0))) AS h")
              .first();
      BigDecimal sum = row.isNullAt(1) ? BigDecimal.ZERO : row.getDecimal(1);
      return new Scan(
          row.getLong(0),
          sum.toBigInteger().longValue(),
          System.nanoTime() - start,
          cpuNanos() - cpuStart);
    }
  }

  /** CPU time of this whole process (every thread: Spark's tasks, GC, JIT), -1 if unknown. */
  private static long cpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  private static void printExitFigures() {
    long cpu = cpuNanos();
    long rssKb = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          rssKb = Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (Exception e) {
      // not Linux: the peak RSS is not measured
    }
    System.err.printf(Locale.ROOT, "%s cpu-ns=%d peak-rss-kb=%d%n", EXIT_PREFIX, cpu, rssKb);
    System.err.flush();
  }
}
