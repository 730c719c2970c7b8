package io.icecompact.core.job;

import java.util.List;

/**
 * What the planner returns: small and bounded by {@code max-groups-per-job}, never by the number of
 * files, because it travels through Step Functions state. Groups are referenced by index; their files
 * are in the plan at {@link #planLocation()}.
 */
public record PlanSummary(
    String jobId,
    String table,
    PlanStatus status,
    String reason,
    PinnedSnapshot pinned,
    String workLocation,
    String planLocation,
    String planSha256,
    int groupCount,
    List<Integer> groupIndexes,
    int inputFiles,
    long inputBytes,
    int skippedGroups,
    long planningMillis) {

  public enum PlanStatus {
    PLANNED,
    NOTHING_TO_DO
  }
}
