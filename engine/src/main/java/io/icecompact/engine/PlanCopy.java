package io.icecompact.engine;

import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.RewritePlanner;
import java.util.ArrayList;
import java.util.List;

/**
 * Stores one dry-run plan again under another job id (and, for a registered copy of the table,
 * another table name), so that several runs rewrite exactly the same groups: planning twice may
 * group files differently, since Iceberg's scan returns them in no fixed order.
 */
public final class PlanCopy {
  private PlanCopy() {}

  /**
   * Stores {@code planned} (a dry run's) as job {@code jobId} of {@code table} and returns its
   * summary.
   */
  public static PlanSummary store(
      TableAccess access,
      RewritePlanner.PlannedJob planned,
      String tableLocation,
      String table,
      String jobId) {
    JobPlan plan = planned.plan();
    WorkLocation work = WorkLocation.of(null, tableLocation, table, jobId);
    JobStore store = new JobStore(access.fileIO());
    var specs = access.loadTable(table).specs();
    List<PlannedGroup> groups = new ArrayList<>(plan.groups().size());
    for (PlannedGroup g : plan.groups()) {
      String sha256 = store.writeGroupPlan(work, jobId, g.index(), planned.tasks(g.index()), specs);
      groups.add(
          new PlannedGroup(
              g.index(),
              g.partition(),
              g.inputFiles(),
              g.inputBytes(),
              g.inputRows(),
              g.deleteFiles(),
              g.maxOutputFileSize(),
              g.expectedRewritePath(),
              g.expectedRewritePathReason(),
              sha256));
    }
    JobPlan copy =
        new JobPlan(
            jobId,
            table,
            plan.pinned(),
            plan.options(),
            plan.filter(),
            plan.createdAtMillis(),
            groups,
            plan.skippedGroups(),
            plan.strategy(),
            plan.rowOrder(),
            plan.action());
    String sha256 = store.writePlan(work, copy);
    return RewritePlanner.summary(copy, work, sha256, 0);
  }
}
