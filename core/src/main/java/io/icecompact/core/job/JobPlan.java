package io.icecompact.core.job;

import java.util.List;
import java.util.Map;

/**
 * The whole plan of a job, stored once in the job's work location by the planner and read by every
 * worker and by the committer. Its SHA-256 travels in the small {@link PlanSummary}.
 */
public record JobPlan(
    String jobId,
    String table,
    PinnedSnapshot pinned,
    Map<String, String> options,
    String filter,
    long createdAtMillis,
    List<PlannedGroup> groups,
    int skippedGroups) {

  public PlannedGroup group(int index) {
    for (PlannedGroup group : groups) {
      if (group.index() == index) {
        return group;
      }
    }
    throw new io.icecompact.core.error.PlanIntegrityException(
        String.format("Job %s has no group %d (plan has %d groups)", jobId, index, groups.size()));
  }
}
