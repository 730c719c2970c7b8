package io.icecompact.care.catalog;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Retries a catalog call the catalog throttled, with exponential backoff and full jitter, a bounded
 * number of times. At fleet scale (tens of care runs listing and loading at once) Glue answers
 * {@code ThrottlingException}; the AWS SDK's own retries (3 attempts) do not always absorb it, and
 * a throttled listing is not a table that may share files, so it is waited out rather than refused.
 * Anything else is thrown at once: whether it may hide a sharer is the caller's decision.
 *
 * <p>Throttling is recognised through the cause chain, so Iceberg's wrapping (a {@code
 * RuntimeException} around the SDK's exception) does not hide it: an SDK service exception that
 * says it is throttling, HTTP 429 or 503, an error code of the throttling family ({@code
 * ThrottlingException}, {@code Throttling}, {@code TooManyRequestsException}, {@code
 * RequestLimitExceeded}, {@code SlowDown}), and Iceberg's {@code ServiceUnavailableException} (a
 * REST catalog's 503).
 */
public final class ThrottlingRetry {
  /** Waits between attempts; tests pass one that records instead of sleeping. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  /** 6 attempts, 200 ms doubling to at most 5 s: about 11 s of waiting at worst. */
  public static final int DEFAULT_ATTEMPTS = 6;

  public static final Duration DEFAULT_BASE = Duration.ofMillis(200);
  public static final Duration DEFAULT_CAP = Duration.ofSeconds(5);

  private static final Set<String> THROTTLING_CODES =
      Set.of(
          "throttlingexception",
          "throttling",
          "toomanyrequestsexception",
          "requestlimitexceeded",
          "slowdown",
          "provisionedthroughputexceededexception");

  private final int attempts;
  private final Duration base;
  private final Duration cap;
  private final Sleeper sleeper;

  public ThrottlingRetry(int attempts, Duration base, Duration cap, Sleeper sleeper) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts is " + attempts + " but must be >= 1");
    }
    this.attempts = attempts;
    this.base = base;
    this.cap = cap;
    this.sleeper = sleeper;
  }

  /** {@link #DEFAULT_ATTEMPTS} attempts, waiting with {@link Thread#sleep}. */
  public static ThrottlingRetry standard() {
    return new ThrottlingRetry(
        DEFAULT_ATTEMPTS, DEFAULT_BASE, DEFAULT_CAP, d -> Thread.sleep(d.toMillis()));
  }

  /**
   * {@code call}'s result; throttling retried until the attempts are spent, when the last exception
   * is thrown (its message then says how many attempts were made).
   */
  public <T> T call(String what, Supplier<T> call) {
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (RuntimeException e) {
        if (!isThrottling(e)) {
          throw e;
        }
        if (attempt >= attempts) {
          throw new CatalogThrottledException(
              what + " was throttled on each of " + attempts + " attempts", e);
        }
        pause(attempt);
      }
    }
  }

  /** Full jitter: a uniform wait in [0, min(cap, base * 2^(attempt-1))]. */
  private void pause(int attempt) {
    long ceiling = Math.min(cap.toMillis(), base.toMillis() << Math.min(attempt - 1, 20));
    try {
      sleeper.sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(ceiling + 1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting out catalog throttling", e);
    }
  }

  /** Whether {@code failure} or one of its causes is the catalog throttling the caller. */
  public static boolean isThrottling(Throwable failure) {
    for (Throwable e = failure; e != null; e = e.getCause() == e ? null : e.getCause()) {
      if (e instanceof ServiceUnavailableException) {
        return true;
      }
      if (e instanceof SdkServiceException service
          && (service.isThrottlingException()
              || service.statusCode() == 429
              || service.statusCode() == 503)) {
        return true;
      }
      if (e instanceof AwsServiceException aws
          && aws.awsErrorDetails() != null
          && aws.awsErrorDetails().errorCode() != null
          && THROTTLING_CODES.contains(
              aws.awsErrorDetails().errorCode().toLowerCase(Locale.ROOT))) {
        return true;
      }
    }
    return false;
  }
}
