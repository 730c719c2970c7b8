package io.icecompact.core.job;

import java.util.List;

/**
 * What the planner returns: small and bounded by {@code max-groups-per-job}, never by the number of
 * files, because it travels through Step Functions state. Groups are referenced by index; their
 * files are in the plan that {@link #planRef()} names.
 *
 * @param nothingToDo when no file met a threshold, the job's whole result (the same in both
 *     runners: the embedded runner returns it, the state machine's {@code NothingToDo} state passes
 *     it on); null when groups were planned
 */
public record PlanSummary(
    PlanRef planRef,
    JobResult nothingToDo,
    PinnedSnapshot pinned,
    int groupCount,
    List<Integer> groupIndexes,
    int inputFiles,
    long inputBytes,
    int skippedGroups,
    long planningMillis) {

  /** The summary of a job that planned nothing, for {@code reason}. */
  public static PlanSummary nothingToDo(PlanRef planRef, String reason, long planningMillis) {
    return new PlanSummary(
        planRef,
        JobResult.nothingToDo(planRef.jobId(), planRef.table(), reason, planningMillis),
        null,
        0,
        List.of(),
        0,
        0,
        0,
        planningMillis);
  }

  /** Whether there are groups to rewrite. */
  public boolean planned() {
    return nothingToDo == null;
  }

  public String jobId() {
    return planRef.jobId();
  }

  public String table() {
    return planRef.table();
  }

  public String workLocation() {
    return planRef.workLocation();
  }

  public String planLocation() {
    return planRef.planLocation();
  }

  public String planSha256() {
    return planRef.planSha256();
  }
}
