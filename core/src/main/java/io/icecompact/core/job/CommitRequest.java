package io.icecompact.core.job;

import java.util.Map;

/**
 * What the committer receives: the stored plan (location and digest) and how to reach the catalog.
 * Group results and failures are read from the work location, never from here, so this stays small
 * however many files the job rewrote, and both runners hand the committer the same thing.
 */
public record CommitRequest(PlanRef planRef, Map<String, String> catalogProperties) {

  public CommitRequest {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
  }

  public static CommitRequest of(JobSpec spec, PlanSummary summary) {
    return new CommitRequest(summary.planRef(), spec.catalogProperties());
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
