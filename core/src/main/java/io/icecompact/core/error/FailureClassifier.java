package io.icecompact.core.error;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * Decides whether an exception from a library (Iceberg, Parquet, the AWS SDK) is worth a retry.
 *
 * <p>Only failures of the environment are transient: timeouts, refused or reset connections,
 * throttling and 5xx answers from a service. Everything else (a corrupt footer, a missing file, a
 * schema mismatch) fails the same way every time, so it becomes the application error the caller
 * names.
 */
public final class FailureClassifier {
  // Matched by name so that core needs no AWS SDK on its classpath.
  private static final Set<String> TRANSIENT_TYPES =
      Set.of(
          "software.amazon.awssdk.core.exception.ApiCallTimeoutException",
          "software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException",
          "software.amazon.awssdk.core.exception.RetryableException",
          "org.apache.iceberg.exceptions.ServiceUnavailableException",
          "org.apache.iceberg.exceptions.ServiceFailureException");

  private FailureClassifier() {}

  /**
   * Returns {@code failure} itself when it is already typed, a {@link TransientException} when any
   * cause is environmental, and otherwise the application error built by {@code otherwise}.
   */
  public static IcecompactException classify(
      Throwable failure, String context, Function<String, ApplicationException> otherwise) {
    if (failure instanceof IcecompactException typed) {
      return typed;
    }
    String detail = context + ": " + describe(failure);
    if (isTransient(failure)) {
      return new TransientException(detail, failure);
    }
    ApplicationException typed = otherwise.apply(detail);
    typed.initCause(failure);
    return typed;
  }

  /**
   * For a handler's last word on a failure: an untyped failure of the environment (S3 answering 503
   * or 500 after the SDK's own retries, a reset connection) becomes a {@link TransientException},
   * which the state machine's Retry matches; anything else is returned as it is. Without this, such
   * a failure reached Step Functions under the SDK's class name, which no Retry lists, and failed
   * the job at once.
   */
  public static RuntimeException retryableIfTransient(RuntimeException failure, String context) {
    if (failure instanceof IcecompactException || !isTransient(failure)) {
      return failure;
    }
    return new TransientException(context + ": " + describe(failure), failure);
  }

  public static boolean isTransient(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InterruptedIOException // includes SocketTimeoutException
          || t instanceof ConnectException
          || t instanceof UnknownHostException
          || (t instanceof SocketException && !(t instanceof java.net.BindException))) {
        return true;
      }
      String name = t.getClass().getName();
      if (TRANSIENT_TYPES.contains(name) || looksThrottledOrUnavailable(t)) {
        return true;
      }
    }
    return false;
  }

  private static boolean looksThrottledOrUnavailable(Throwable t) {
    String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
    String name = t.getClass().getSimpleName().toLowerCase(Locale.ROOT);
    return name.contains("throttl")
        || message.contains("slow down")
        || message.contains("slowdown")
        || message.contains("throttl")
        || message.contains("status code: 503")
        || message.contains("status code: 500")
        || message.contains("service unavailable");
  }

  /** The innermost message, which is the one that says what went wrong. */
  public static String describe(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : ": " + root.getMessage();
    if (root == failure) {
      return root.getClass().getSimpleName() + message;
    }
    return failure.getClass().getSimpleName()
        + (failure.getMessage() == null ? "" : ": " + failure.getMessage())
        + " (caused by "
        + root.getClass().getSimpleName()
        + message
        + ")";
  }
}
