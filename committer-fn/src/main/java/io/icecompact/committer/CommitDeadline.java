package io.icecompact.committer;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * How long a job keeps trying to commit while other writers win the table's compare-and-swap, and
 * how long it waits between tries. Bounded by time, not by a count: a writer committing every few
 * hundred milliseconds makes any small count of attempts lose, while its gaps keep coming. The
 * bound is the table's own {@code commit.retry.total-timeout-ms} (Iceberg's total retry time,
 * default 30 minutes), and in the committer Lambda also the invocation's remaining time less what
 * the job needs after committing.
 */
final class CommitDeadline {
  /** What the committer needs after its last commit attempt: verification, cleanup, the result. */
  static final long AFTER_COMMIT_MILLIS = 60_000;

  /** Iceberg needs a count; time bounds the attempts long before this one does. */
  private static final int ATTEMPTS_BOUND = 1_000_000;

  private final long deadlineNanos;
  private final String bound;
  private final long maxWaitMillis;

  private CommitDeadline(long deadlineNanos, String bound, long maxWaitMillis) {
    this.deadlineNanos = deadlineNanos;
    this.bound = bound;
    this.maxWaitMillis = maxWaitMillis;
  }

  /**
   * From now: the table's total retry time, or {@code invocationMillisLeft} less {@link
   * #AFTER_COMMIT_MILLIS} when that ends sooner.
   */
  static CommitDeadline startingNow(
      Map<String, String> tableProperties, OptionalLong invocationMillisLeft) {
    long tableMillis =
        PropertyUtil.propertyAsLong(
            tableProperties,
            TableProperties.COMMIT_TOTAL_RETRY_TIME_MS,
            TableProperties.COMMIT_TOTAL_RETRY_TIME_MS_DEFAULT);
    long waitMillis =
        PropertyUtil.propertyAsLong(
            tableProperties,
            TableProperties.COMMIT_MIN_RETRY_WAIT_MS,
            TableProperties.COMMIT_MIN_RETRY_WAIT_MS_DEFAULT);
    long millis = tableMillis;
    String bound = TableProperties.COMMIT_TOTAL_RETRY_TIME_MS + "=" + tableMillis;
    if (invocationMillisLeft.isPresent()
        && invocationMillisLeft.getAsLong() - AFTER_COMMIT_MILLIS < millis) {
      millis = Math.max(0, invocationMillisLeft.getAsLong() - AFTER_COMMIT_MILLIS);
      bound = "the committer's remaining time";
    }
    return new CommitDeadline(
        System.nanoTime() + millis * 1_000_000, bound, Math.max(0, waitMillis));
  }

  /**
   * The {@code commit.retry.*} settings one Iceberg commit of the job runs with: attempts until
   * this deadline, whatever their number, each after a short wait of the table's {@code
   * commit.retry.min-wait-ms} (plus Iceberg's jitter) rather than an exponential backoff: a writer
   * committing every few hundred milliseconds leaves gaps that short, and a long wait only lets
   * more commits in.
   */
  Map<String, String> retrySettings() {
    long left = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
    return Map.of(
        TableProperties.COMMIT_NUM_RETRIES, Integer.toString(ATTEMPTS_BOUND),
        TableProperties.COMMIT_TOTAL_RETRY_TIME_MS, Long.toString(left),
        TableProperties.COMMIT_MIN_RETRY_WAIT_MS, Long.toString(Math.max(1, maxWaitMillis)),
        TableProperties.COMMIT_MAX_RETRY_WAIT_MS, Long.toString(Math.max(1, maxWaitMillis)));
  }

  boolean passed() {
    return System.nanoTime() - deadlineNanos >= 0;
  }

  /**
   * What bounds the time, for a group's reason: the table property and its value, or the Lambda's
   * time.
   */
  String bound() {
    return bound;
  }

  /**
   * A short random wait before the next round, at most the table's {@code
   * commit.retry.min-wait-ms}: short, so the job is ready for the next gap between the other
   * writers' commits; random, so two committers that just collided do not collide again.
   */
  void pause() {
    long millis = ThreadLocalRandom.current().nextLong(maxWaitMillis + 1);
    long left = Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
    try {
      Thread.sleep(Math.min(millis, left));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting to commit again", e);
    }
  }
}
