package io.icecompact.cli.runner;

import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import java.util.stream.IntStream;

/**
 * Stores one plan again under another job id (and, for a registered copy of the table, another table
 * name), so that several runs rewrite exactly the same groups: planning twice may group files
 * differently, since Iceberg's scan returns them in no fixed order.
 */
public final class PlanCopy {
  private PlanCopy() {}

  /** Stores {@code plan} as job {@code jobId} of {@code table} and returns its summary. */
  public static PlanSummary store(TableAccess access, JobPlan plan, String tableLocation, String table, String jobId) {
    JobPlan copy =
        new JobPlan(
            jobId, table, plan.pinned(), plan.options(), plan.filter(), plan.createdAtMillis(),
            plan.groups(), plan.skippedGroups());
    WorkLocation work = WorkLocation.of(null, tableLocation, table, jobId);
    String sha256 = new JobStore(access.fileIO()).writePlan(work, copy);
    return new PlanSummary(
        jobId,
        table,
        PlanSummary.PlanStatus.PLANNED,
        null,
        copy.pinned(),
        work.jobDirectory(),
        work.plan(),
        sha256,
        copy.groups().size(),
        IntStream.range(0, copy.groups().size()).boxed().toList(),
        copy.groups().stream().mapToInt(PlannedGroup::inputFiles).sum(),
        copy.groups().stream().mapToLong(PlannedGroup::inputBytes).sum(),
        copy.skippedGroups(),
        0);
  }
}
