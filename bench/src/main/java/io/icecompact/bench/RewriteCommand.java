package io.icecompact.bench;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bench paths} and {@code bench memory}: generates a fragmented table per shape, plans it
 * once, and rewrites the same groups with each rewrite path, thread count and prefetch setting,
 * printing one table row per run: wall time, MB/s, rows/s, peak heap and the path each group took.
 * Nothing is committed; each run's output files are deleted before the next.
 */
abstract class RewriteCommand implements Callable<Integer> {
  @Mixin BenchOptions.Rewrite rewrite;
  @Mixin BenchOptions.Paths paths;
  @Mixin BenchOptions.Warmups warmups;
  @Mixin BenchOptions.Rounds rounds;
  @Mixin BenchOptions.Warehouse warehouse;
  @Spec CommandSpec spec;

  /** Memory mode: one unpartitioned table, one group, one thread. */
  abstract boolean memory();

  abstract List<String> shapes();

  abstract List<Integer> threads();

  /** Day partitions; memory mode's table has none, but its equality-delete window counts them. */
  abstract int partitions();

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Path base = warehouse.base();
    boolean memory = memory();
    int warmups = this.warmups.warmups;
    int rounds = this.rounds.rounds;
    BenchReport report = new BenchReport(out);
    Map<String, String> tableProperties = rewrite.tableProperties();
    for (String shape : shapes()) {
      FragmentedTable.Shape tableShape = shape(shape);
      Path dir = Files.createDirectories(base.resolve(memory ? "memory" : shape));
      Map<String, String> catalog = LocalWarehouse.catalogProperties(dir);
      long genStart = System.nanoTime();
      try (TableAccess access = new TableAccess(catalog)) {
        FragmentedTable.create(
            access.catalog(), TableIdentifier.parse(PathRuns.TABLE), tableShape, tableProperties);
      }
      err.printf(
          Locale.ROOT,
          "generated the '%s' table in %.1f s%n",
          shape,
          (System.nanoTime() - genStart) / 1e9);
      for (String sortOrder : rewrite.sortOrders) {
        // one thread: a group sorted in memory may use the whole heap
        String label =
            shape
                + ", sort "
                + sortOrder
                + (rewrite.sortHeapBytes > 0
                    ? String.format(Locale.ROOT, " (sort heap %,d MB)", rewrite.sortHeapBytes >> 20)
                    : "");
        PathRuns sortRuns =
            new PathRuns(readCatalog(catalog), label, report, Map.of("sort-order", sortOrder));
        // generic: rows sorted as records; auto: as columns (the same sequence)
        for (RewritePathChoice path : paths.paths) {
          sortRuns.run(
              path, limits(rewrite.prefetch.get(0)), 1, 1, warmups, rounds, rewrite.sortHeapBytes);
        }
      }
      String format = tableProperties.get(TableProperties.DEFAULT_FILE_FORMAT);
      String label = "parquet".equals(format) ? shape : shape + ", " + format;
      PathRuns runs = new PathRuns(readCatalog(catalog), label, report);
      for (int threadCount : threads()) {
        for (RewritePathChoice path : paths.paths) {
          for (String setting : rewrite.prefetch) {
            // the generic path copies rows on one thread: column threads change nothing for it
            for (int columns :
                path == RewritePathChoice.GENERIC ? List.of(1) : rewrite.columnThreads) {
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

  private FragmentedTable.Shape shape(String name) {
    boolean deletes;
    long equalityDeleteWindow;
    int partitions = partitions();
    int rowsPerFile = rewrite.rowsPerFile;
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
    if (memory()) {
      // one partition: the planner makes one group of the whole table
      return new FragmentedTable.Shape(
          0,
          rewrite.files,
          rowsPerFile,
          rewrite.formatVersion,
          rewrite.deleteFiles,
          rewrite.equalityDeletes,
          false,
          equalityDeleteWindow);
    }
    int perPartition = Math.max(1, rewrite.files / Math.max(1, partitions));
    return new FragmentedTable.Shape(
        partitions,
        perPartition,
        rowsPerFile,
        rewrite.formatVersion,
        deletes ? rewrite.deleteFiles : 0,
        deletes ? rewrite.equalityDeletes : 0,
        true,
        equalityDeleteWindow);
  }

  /** The catalog the runs read through: the same warehouse, reads delayed when asked. */
  private Map<String, String> readCatalog(Map<String, String> catalog) {
    if (rewrite.latencyMillis <= 0) {
      return catalog;
    }
    Map<String, String> delayed = new LinkedHashMap<>(catalog);
    delayed.put("io-impl", LatencyFileIO.class.getName());
    delayed.put(LatencyFileIO.LATENCY_MS, Long.toString(rewrite.latencyMillis));
    return delayed;
  }

  private PrefetchLimits limits(String setting) {
    return "off".equals(setting)
        ? PrefetchLimits.OFF
        : PrefetchLimits.forHeap(Runtime.getRuntime().maxMemory());
  }
}
