package io.icecompact.core.error;

/**
 * A failure that would repeat identically on a retry: bad input, a broken invariant, a corrupt
 * file. Never retried; the job reports it with its message.
 */
public abstract class ApplicationException extends IcecompactException {
  protected ApplicationException(String message) {
    super(message);
  }

  protected ApplicationException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
