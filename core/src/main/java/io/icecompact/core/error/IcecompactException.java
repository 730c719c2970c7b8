package io.icecompact.core.error;

/**
 * Base of every failure icecompact raises on purpose. Subclasses are either {@link
 * TransientException} (retry the same step) or {@link ApplicationException} (retrying cannot help).
 * The Step Functions definition matches {@code Retry}/{@code Catch} on these class names, so
 * renaming one is a breaking change.
 */
public abstract class IcecompactException extends RuntimeException {
  protected IcecompactException(String message) {
    super(message);
  }

  protected IcecompactException(String message, Throwable cause) {
    super(message, cause);
  }

  /** True when the same step, run again unchanged, may succeed. */
  public abstract boolean retryable();
}
