package io.icecompact.core.job;

import java.util.Map;

/**
 * What one worker invocation receives: which group of which stored plan to rewrite, and the attempt
 * number (part of every output file name, so a retry never overwrites an earlier attempt's files).
 *
 * @param attempt 0 in the Map's item (the worker claims its attempt number itself)
 */
public record GroupRequest(
    PlanRef planRef, Map<String, String> catalogProperties, int groupIndex, int attempt) {

  public GroupRequest {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
  }

  public static GroupRequest of(JobSpec spec, PlanSummary summary, int groupIndex, int attempt) {
    return new GroupRequest(summary.planRef(), spec.catalogProperties(), groupIndex, attempt);
  }

  /** The same group, as attempt {@code number}. */
  public GroupRequest asAttempt(int number) {
    return new GroupRequest(planRef, catalogProperties, groupIndex, number);
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
