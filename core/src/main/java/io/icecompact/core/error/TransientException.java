package io.icecompact.core.error;

/**
 * A failure of the environment rather than of the job: an I/O timeout, a throttled request, a
 * connection reset. Thrown when retrying the same step with the same input may succeed.
 */
public class TransientException extends IcecompactException {
  public TransientException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
