package io.icecompact.worker.lambda;

import io.icecompact.core.error.TransientException;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseLostException;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.TableLease;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job's table lease alive while its groups are rewritten: each group's worker, before it
 * starts, makes the lease last {@link #HOLD} more (one conditional write on owner and token, {@link
 * TableLease#holdFor}). A job of thousands of groups in waves outlives any fixed TTL; with a
 * heartbeat its lease lasts as long as workers run, and a job that stops (its execution stopped or
 * timed out) frees the table {@code HOLD} after its last group started, not hours later.
 *
 * <p>A lease another execution took over, or that was released, fails the group with {@link
 * LeaseLostException} before it reads anything: that job's commit would refuse anyway, and its
 * remaining groups stop costing. A DynamoDB error (throttling, 5xx) only skips this beat: the
 * rewrite does not depend on it, the next group beats again, and the commit's own check keeps a
 * lease nobody took.
 */
public final class LeaseHeartbeat {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseHeartbeat.class);

  /**
   * Two worker timeouts (900 s each): longer than any gap between two groups' starts while workers
   * run.
   */
  public static final Duration HOLD = Duration.ofMinutes(30);

  private static final LeaseHeartbeat NONE = new LeaseHeartbeat(null);

  private final TableLease lease;

  public LeaseHeartbeat(TableLease lease) {
    this.lease = lease;
  }

  /** No heartbeat: the lease is not this function's to keep (no lease table configured). */
  public static LeaseHeartbeat none() {
    return NONE;
  }

  /** The heartbeat over the lease table named by {@code LEASE_TABLE}, or none when it is unset. */
  public static LeaseHeartbeat fromEnvironment() {
    String table = System.getenv(LeaseSteps.TABLE_ENV);
    return table == null || table.isBlank()
        ? NONE
        : new LeaseHeartbeat(LeaseSteps.fromEnvironment().lease());
  }

  /**
   * Extends {@code grant}'s lease by {@link #HOLD}; nothing when there is no lease table or no
   * grant.
   *
   * @throws LeaseLostException when the job no longer holds the lease
   */
  public void beat(LeaseGrant grant) {
    if (lease == null || grant == null || !grant.acquired()) {
      return;
    }
    try {
      lease.holdFor(grant.table(), grant.owner(), grant.token(), HOLD);
    } catch (TransientException e) {
      LOG.warn(
          "Could not extend the lease on {} (token {}); the group goes on: {}",
          grant.table(),
          grant.token(),
          e.getMessage());
    }
  }
}
