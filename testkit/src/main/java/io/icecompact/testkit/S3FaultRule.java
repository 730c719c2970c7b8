package io.icecompact.testkit;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which requests {@link FaultyS3} answers with {@code fault}: those on {@code bucket} (null: any)
 * whose key contains a match of {@code keyPattern} (null: any key, including none, as in a
 * listing), with HTTP {@code method} (null: any), every {@code every}-th such request (1: each),
 * each with {@code probability}, at most {@code times} times in all ({@link #UNLIMITED}: no limit).
 * Build with {@link #of} and the {@code on*}/{@code with*} methods, e.g. {@code
 * S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys("/data/").times(2)}.
 */
public record S3FaultRule(
    S3Fault fault,
    String bucket,
    Pattern keyPattern,
    String method,
    int every,
    double probability,
    int times) {
  public static final int UNLIMITED = Integer.MAX_VALUE;

  public S3FaultRule {
    Objects.requireNonNull(fault, "fault");
    if (probability < 0 || probability > 1) {
      throw new IllegalArgumentException(
          "probability is " + probability + " but must be within [0, 1]");
    }
    if (every < 1) {
      throw new IllegalArgumentException("every is " + every + " but must be >= 1");
    }
    if (times < 0) {
      throw new IllegalArgumentException("times is " + times + " but must be >= 0");
    }
  }

  /** Every request, always, without limit; narrow it with the other methods. */
  public static S3FaultRule of(S3Fault fault) {
    return new S3FaultRule(fault, null, null, null, 1, 1.0, UNLIMITED);
  }

  public S3FaultRule onBucket(String bucket) {
    return new S3FaultRule(fault, bucket, keyPattern, method, every, probability, times);
  }

  /** Keys in which {@code regex} finds a match ({@link java.util.regex.Matcher#find}). */
  public S3FaultRule onKeys(String regex) {
    return new S3FaultRule(
        fault, bucket, Pattern.compile(regex), method, every, probability, times);
  }

  /** {@code GET}, {@code HEAD}, {@code PUT}, {@code POST} or {@code DELETE}. */
  public S3FaultRule onMethod(String method) {
    return new S3FaultRule(fault, bucket, keyPattern, method, every, probability, times);
  }

  /**
   * Every {@code n}-th request the rule matches (the n-th, 2n-th, ...): spreads faults over a run
   * and reaches one whenever n requests match, which a probability over keys holding random file
   * names does not guarantee.
   */
  public S3FaultRule everyNth(int n) {
    return new S3FaultRule(fault, bucket, keyPattern, method, n, probability, times);
  }

  public S3FaultRule withProbability(double probability) {
    return new S3FaultRule(fault, bucket, keyPattern, method, every, probability, times);
  }

  public S3FaultRule times(int times) {
    return new S3FaultRule(fault, bucket, keyPattern, method, every, probability, times);
  }

  boolean matches(String requestMethod, String requestBucket, String requestKey) {
    return (method == null || method.equalsIgnoreCase(requestMethod))
        && (bucket == null || bucket.equals(requestBucket))
        && (keyPattern == null || keyPattern.matcher(requestKey).find());
  }
}
