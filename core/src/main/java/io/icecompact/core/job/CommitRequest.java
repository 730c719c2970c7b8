package io.icecompact.core.job;

import java.util.List;
import java.util.Map;

/**
 * What the committer receives: the stored plan (location and digest), how to reach the catalog, and
 * the groups whose workers gave up. Group results are read from the work location, never from here,
 * so this stays small however many files the job rewrote.
 */
public record CommitRequest(
    String jobId,
    String table,
    Map<String, String> catalogProperties,
    String workLocation,
    String planLocation,
    String planSha256,
    List<GroupFailure> failures) {

  public CommitRequest {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
    failures = failures == null ? List.of() : List.copyOf(failures);
  }

  public static CommitRequest of(JobSpec spec, PlanSummary summary, List<GroupFailure> failures) {
    return new CommitRequest(
        summary.jobId(),
        summary.table(),
        spec.catalogProperties(),
        summary.workLocation(),
        summary.planLocation(),
        summary.planSha256(),
        failures);
  }
}
