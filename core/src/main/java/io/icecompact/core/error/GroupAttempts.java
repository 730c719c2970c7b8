package io.icecompact.core.error;

/**
 * How many times a group's rewrite is attempted, in both runners: the deployed state machine's
 * {@code RewriteGroup} Retry (its {@code MaxAttempts} counts retries, so one more attempt in all)
 * and the embedded runner. What is retried is decided by type: a {@link TransientException}, which
 * {@link FailureClassifier#retryableIfTransient} makes of an untyped failure of the environment,
 * and nothing else. {@code RetryParityTest} (state-machine) reads the definition and fails when the
 * two disagree.
 */
public final class GroupAttempts {
  /** The first attempt and the Map's three retries. */
  public static final int MAX = 4;

  private GroupAttempts() {}

  /**
   * {@code failure} as both runners see a failed rewrite of group {@code groupIndex}: an untyped
   * failure of the environment becomes a {@link TransientException} (retried), anything else stays
   * what it is.
   */
  public static RuntimeException classify(RuntimeException failure, int groupIndex, String jobId) {
    return FailureClassifier.retryableIfTransient(
        failure, "Cannot rewrite group " + groupIndex + " of job " + jobId);
  }

  /** Whether a failed attempt number {@code attempt} is followed by another. */
  public static boolean retried(RuntimeException classified, int attempt) {
    return classified instanceof TransientException && attempt < MAX;
  }
}
