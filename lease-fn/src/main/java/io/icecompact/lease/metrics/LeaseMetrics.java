package io.icecompact.lease.metrics;

import java.util.Map;

/**
 * What {@code AcquireLease} found, as one CloudWatch Embedded Metric Format document (see {@link
 * EmfDocument}): {@code LeaseAcquired}, {@code LeaseTakeovers} and {@code LeaseHeld}, each 0 or 1,
 * so that a sum over any period counts the jobs that started, the leases taken over after their
 * owner never released them (a crashed or stopped execution), and the executions that ended at once
 * because another job of the table was running. Every attempt emits all three, so that the metrics
 * have data points (zeros) in quiet periods too.
 */
public final class LeaseMetrics {
  /** The outcome of one lease acquisition. */
  public enum Outcome {
    /** The lease was free (never taken, or released) or already this execution's. */
    ACQUIRED,
    /** The lease had expired without being released, and this execution took it over. */
    TOOK_OVER_EXPIRED,
    /** Another execution holds the lease: this one does not compact. */
    HELD_BY_ANOTHER
  }

  private LeaseMetrics() {}

  public static Map<String, Object> emf(
      String table, String jobId, Outcome outcome, long timestampMillis) {
    return new EmfDocument(table)
        .field("job_id", jobId)
        .field("lease_outcome", outcome.name())
        .count("LeaseAcquired", outcome == Outcome.HELD_BY_ANOTHER ? 0 : 1)
        .count("LeaseTakeovers", outcome == Outcome.TOOK_OVER_EXPIRED ? 1 : 0)
        .count("LeaseHeld", outcome == Outcome.HELD_BY_ANOTHER ? 1 : 0)
        .toMap(timestampMillis);
  }
}
