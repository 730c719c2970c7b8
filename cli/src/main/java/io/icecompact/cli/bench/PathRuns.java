package io.icecompact.cli.bench;

import io.icecompact.cli.runner.PlanCopy;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.RewritePathChoice;
import java.util.Map;
import org.apache.iceberg.Table;

/** The runs of one table shape: planned once, then every configuration on a copy of that plan. */
public final class PathRuns {
  public static final String TABLE = "bench.orders";

  private final Map<String, String> catalog;
  private final String shape;
  private final BenchReport report;
  private final JobPlan plan;
  private final String tableLocation;
  private int runs;

  public PathRuns(Map<String, String> catalog, String shape, BenchReport report) {
    this.catalog = catalog;
    this.shape = shape;
    this.report = report;
    try (TableAccess access = new TableAccess(catalog)) {
      long start = System.nanoTime();
      this.plan = new RewritePlanner(access).dryRun(spec()).plan();
      double planSeconds = (System.nanoTime() - start) / 1e9;
      Table table = access.loadTable(TABLE);
      this.tableLocation = table.location();
      report.table(shape, table, plan, planSeconds);
    }
  }

  private JobSpec spec() {
    return new JobSpec(null, TABLE, catalog, Map.of(), null, null, null);
  }

  public void run(RewritePathChoice path, PrefetchLimits prefetch, int threads) {
    try (TableAccess access = new TableAccess(catalog)) {
      PlanSummary summary = PlanCopy.store(access, plan, tableLocation, TABLE, plan.jobId() + "-run" + (++runs));
      PathRun.Figures figures = PathRun.run(access, spec(), summary, path, prefetch, threads);
      report.row(shape, path, prefetch, threads, figures);
    }
  }
}
