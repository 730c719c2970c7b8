package io.icecompact.bench;

import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.PlanCopy;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.RewritePathChoice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;

/** The runs of one table shape: planned once, then every configuration on a copy of that plan. */
public final class PathRuns {
  public static final String TABLE = "bench.orders";

  private final Map<String, String> catalog;
  private final String shape;
  private final BenchReport report;
  private final RewritePlanner.PlannedJob planned;
  private final String tableLocation;
  private final Map<String, String> options;
  private int runs;

  public PathRuns(Map<String, String> catalog, String shape, BenchReport report) {
    this(catalog, shape, report, Map.of());
  }

  /** With rewrite {@code options} (e.g. a {@code sort-order}) for every run. */
  public PathRuns(
      Map<String, String> catalog, String shape, BenchReport report, Map<String, String> options) {
    this.catalog = catalog;
    this.options = Map.copyOf(options);
    this.shape = shape;
    this.report = report;
    try (TableAccess access = new TableAccess(catalog)) {
      long start = System.nanoTime();
      RewritePlanner.PlannedJob planned = new RewritePlanner(access).dryRun(spec());
      if (planned.plan() == null) {
        throw new IllegalArgumentException(
            "Nothing to rewrite in the generated '"
                + shape
                + "' table ("
                + planned.reason()
                + "): give it more files per partition");
      }
      this.planned = planned;
      double planSeconds = (System.nanoTime() - start) / 1e9;
      Table table = access.loadTable(TABLE);
      this.tableLocation = table.location();
      report.table(shape, table, planned.plan(), planSeconds);
    }
  }

  private JobSpec spec() {
    return new JobSpec(null, TABLE, catalog, options, null, null, null);
  }

  /**
   * Runs one configuration {@code warmups + rounds} times and reports the measured rounds: the JIT
   * compiles the rewrite's hot loops during the first runs (on two cores for tens of seconds), so a
   * single run measures mostly the compiler.
   */
  public void run(
      RewritePathChoice path,
      PrefetchLimits prefetch,
      int threads,
      int columnThreads,
      int warmups,
      int rounds) {
    run(path, prefetch, threads, columnThreads, warmups, rounds, 0);
  }

  /**
   * As {@link #run}, each group sorting in {@code sortHeapBytes} of heap (0: its share of this
   * heap).
   */
  public void run(
      RewritePathChoice path,
      PrefetchLimits prefetch,
      int threads,
      int columnThreads,
      int warmups,
      int rounds,
      long sortHeapBytes) {
    List<PathRun.Figures> measured = new ArrayList<>();
    try (TableAccess access = new TableAccess(catalog)) {
      for (int round = 0; round < warmups + rounds; round++) {
        PlanSummary summary =
            PlanCopy.store(
                access, planned, tableLocation, TABLE, planned.plan().jobId() + "-run" + (++runs));
        PathRun.Figures figures =
            PathRun.run(
                access, spec(), summary, path, prefetch, threads, columnThreads, sortHeapBytes);
        if (round >= warmups) {
          measured.add(figures);
        }
      }
    }
    report.row(shape, path, prefetch, threads, columnThreads, measured);
  }
}
