package io.icecompact.cli;

import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.RowOrder;
import io.icecompact.core.options.RewriteStrategy;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.RewritePlanner;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact plan}: the dry run. Shows which files a job would rewrite and why; writes
 * nothing.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = "Show the file groups a compaction job would rewrite, without writing anything.")
final class PlanCommand implements Callable<Integer> {
  @Mixin JobOptions job;

  @Option(
      names = "--json",
      description = "Print the plan (groups without their scan tasks) as JSON")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (TableAccess access = new TableAccess(job.catalogProperties())) {
      RewritePlanner.PlannedJob planned = new RewritePlanner(access).dryRun(job.toSpec());
      if (json) {
        out.println(JobJson.toPrettyJson(describe(planned)));
      } else if (planned.plan() == null) {
        out.println("Nothing to do: " + planned.reason());
      } else {
        List<PlannedGroup> groups = planned.plan().groups();
        out.printf(
            Locale.ROOT,
            "%s: %d groups, %d files, %s, pinned snapshot %d%n",
            job.table,
            groups.size(),
            groups.stream().mapToInt(PlannedGroup::inputFiles).sum(),
            ResultPrinter.bytes(groups.stream().mapToLong(PlannedGroup::inputBytes).sum()),
            planned.plan().pinned().snapshotId());
        out.println("  strategy " + strategy(planned.plan()));
        for (PlannedGroup group : groups) {
          out.printf(
              Locale.ROOT,
              "  group %3d  %-40s %4d files  %10s  %9d rows  %3d delete files  %s%n",
              group.index(),
              group.partition(),
              group.inputFiles(),
              ResultPrinter.bytes(group.inputBytes()),
              group.inputRows(),
              group.deleteFiles(),
              expectedPath(group));
        }
        if (planned.plan().skippedGroups() > 0) {
          out.printf(
              "  %d more groups exceed max-groups-per-job and are left for a later run%n",
              planned.plan().skippedGroups());
        }
      }
      out.flush();
      return 0;
    }
  }

  /** {@code binpack}, or {@code sort} with the order every group's rows are written in. */
  static String strategy(JobPlan plan) {
    RowOrder order = plan.rowOrder();
    if (order == null) {
      return String.valueOf(plan.strategy());
    }
    String ids = " (files written with sort order id " + order.outputSortOrderId() + ")";
    if (RewriteStrategy.BINPACK.optionValue().equals(plan.strategy())) {
      return plan.strategy()
          + ", keeping the table's sort order "
          + order.sortOrder()
          + " in each group a worker can sort in memory"
          + ids;
    }
    return plan.strategy() + " by " + order.sortOrder() + ids;
  }

  /** The columnar path is the default: only a generic group needs its reason on the line. */
  private static String expectedPath(PlannedGroup group) {
    if (group.expectedRewritePath() == null
        || RewritePath.COLUMNAR.equals(group.expectedRewritePath())) {
      return String.valueOf(group.expectedRewritePath());
    }
    return group.expectedRewritePath() + " (" + group.expectedRewritePathReason() + ")";
  }

  private static Map<String, Object> describe(RewritePlanner.PlannedJob planned) {
    Map<String, Object> doc = new LinkedHashMap<>();
    if (planned.plan() == null) {
      doc.put("status", "NOTHING_TO_DO");
      doc.put("reason", planned.reason());
      return doc;
    }
    doc.put("status", "PLANNED");
    doc.put("pinned", planned.plan().pinned());
    doc.put("skipped_groups", planned.plan().skippedGroups());
    doc.put("strategy", planned.plan().strategy());
    if (planned.plan().rowOrder() != null) {
      doc.put("row_order", planned.plan().rowOrder());
    }
    doc.put(
        "groups",
        planned.plan().groups()); // a dry run's entries have no digest: nothing was stored
    return doc;
  }
}
