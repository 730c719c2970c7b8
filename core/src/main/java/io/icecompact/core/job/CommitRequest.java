package io.icecompact.core.job;

import java.util.List;
import java.util.Map;

/**
 * What the committer receives: the stored plan (location and digest) and how to reach the catalog. Group
 * results and failures are read from the work location, never from here, so this stays small however many
 * files the job rewrote, and both runners hand the committer the same thing.
 */
public record CommitRequest(
    String jobId,
    String table,
    Map<String, String> catalogProperties,
    String workLocation,
    String planLocation,
    String planSha256) {

  public CommitRequest {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
  }

  public static CommitRequest of(JobSpec spec, PlanSummary summary) {
    return new CommitRequest(
        summary.jobId(),
        summary.table(),
        spec.catalogProperties(),
        summary.workLocation(),
        summary.planLocation(),
        summary.planSha256());
  }
}
