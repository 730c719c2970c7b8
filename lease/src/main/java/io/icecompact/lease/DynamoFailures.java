package io.icecompact.lease;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.IcecompactException;
import io.icecompact.core.error.TransientException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/** Types a DynamoDB failure the way the rest of icecompact types failures. */
final class DynamoFailures {
  private DynamoFailures() {}

  /**
   * A {@link TransientException} for throttling, 5xx answers, timeouts and connection failures
   * (after the SDK's own retries), otherwise a {@link LeaseStoreException}; both name {@code
   * context}.
   */
  static IcecompactException classify(SdkException failure, String context) {
    if (isTransient(failure)) {
      return new TransientException(context + ": " + FailureClassifier.describe(failure), failure);
    }
    LeaseStoreException typed =
        new LeaseStoreException(context + ": " + FailureClassifier.describe(failure));
    typed.initCause(failure);
    return typed;
  }

  static boolean isTransient(SdkException failure) {
    if (failure instanceof AwsServiceException service) {
      return service.isThrottlingException() || service.statusCode() >= 500;
    }
    // Client-side: timeouts, refused or reset connections (FailureClassifier walks the causes).
    return failure.retryable() || FailureClassifier.isTransient(failure);
  }
}
