package io.icecompact.core.job;

import java.util.List;
import java.util.Map;

/**
 * The plan index of a job, stored once in the job's work location by the planner and read by every
 * worker and by the committer: the pinned snapshot, the options and one small entry per group. Its
 * size depends on the number of groups only ({@code max-groups-per-job}); each group's files are in
 * its own document ({@link GroupPlanDocument}), whose SHA-256 its entry holds. The index's own
 * SHA-256 travels in the small {@link PlanSummary}.
 *
 * @param strategy {@code binpack} or {@code sort} ({@code RewriteStrategy})
 * @param rowOrder how every group's rows are ordered; null keeps input order
 * @param action what the job's workers and committer do; null in plans stored before actions
 *     existed, which are rewrites ({@link #jobAction})
 */
public record JobPlan(
    String jobId,
    String table,
    PinnedSnapshot pinned,
    Map<String, String> options,
    String filter,
    long createdAtMillis,
    List<PlannedGroup> groups,
    int skippedGroups,
    String strategy,
    RowOrder rowOrder,
    JobAction action) {

  /** A rewrite's plan. */
  public JobPlan(
      String jobId,
      String table,
      PinnedSnapshot pinned,
      Map<String, String> options,
      String filter,
      long createdAtMillis,
      List<PlannedGroup> groups,
      int skippedGroups,
      String strategy,
      RowOrder rowOrder) {
    this(
        jobId,
        table,
        pinned,
        options,
        filter,
        createdAtMillis,
        groups,
        skippedGroups,
        strategy,
        rowOrder,
        null);
  }

  public JobAction jobAction() {
    return JobAction.orDefault(action);
  }

  public boolean converts() {
    return jobAction() == JobAction.CONVERT_EQUALITY_DELETES;
  }

  public PlannedGroup group(int index) {
    // the planner numbers groups 0..n-1 in order
    if (index >= 0 && index < groups.size() && groups.get(index).index() == index) {
      return groups.get(index);
    }
    for (PlannedGroup group : groups) {
      if (group.index() == index) {
        return group;
      }
    }
    throw new io.icecompact.core.error.PlanIntegrityException(
        String.format("Job %s has no group %d (plan has %d groups)", jobId, index, groups.size()));
  }
}
