package io.icecompact.core.job;

/**
 * Which job's stored plan a stage works on: the one reference the planner hands the workers and the
 * committer (inside {@link PlanSummary}, {@link GroupRequest} and {@link CommitRequest}), so that
 * none of them repeats its fields and the state machine passes it on as one value.
 *
 * @param workLocation the job's directory ({@link WorkLocation}); the plan index is derived from it
 * @param planSha256 the plan index's SHA-256, which workers and the committer check; null when
 *     nothing was planned
 */
public record PlanRef(String jobId, String table, String workLocation, String planSha256) {

  /** The job's work location. */
  public WorkLocation work() {
    return new WorkLocation(workLocation);
  }

  /** The plan index ({@code plan.json}), always in the work location. */
  public String planLocation() {
    return work().plan();
  }
}
