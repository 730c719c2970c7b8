package io.icecompact.lease.lambda;

import io.icecompact.core.policy.CareStep;
import java.util.List;

/**
 * Values the later states need from the first one: the Map's concurrency, when the job started (for
 * the job log), the care steps to run after a commit (empty: none), and whether the execution only
 * re-runs the committer of an earlier job ({@code recommit}).
 */
public record LeaseSettings(
    int maxConcurrency,
    int leaseTtlSeconds,
    long startedAtMillis,
    List<CareStep> care,
    boolean recommit) {
  public LeaseSettings {
    care = care == null ? List.of() : List.copyOf(care);
  }
}
