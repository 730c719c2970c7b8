package io.icecompact.core.job;

import java.util.Map;

/**
 * What one worker invocation receives: which group of which stored plan to rewrite, and the attempt
 * number (part of every output file name, so a retry never overwrites an earlier attempt's files).
 */
public record GroupRequest(
    String jobId,
    String table,
    Map<String, String> catalogProperties,
    String workLocation,
    String planLocation,
    String planSha256,
    int groupIndex,
    int attempt) {

  public GroupRequest {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
  }

  public static GroupRequest of(JobSpec spec, PlanSummary summary, int groupIndex, int attempt) {
    return new GroupRequest(
        summary.jobId(),
        summary.table(),
        spec.catalogProperties(),
        summary.workLocation(),
        summary.planLocation(),
        summary.planSha256(),
        groupIndex,
        attempt);
  }
}
