package io.icecompact.core.error;

/**
 * Thrown by a worker when a file it was asked to rewrite is not live in the pinned snapshot:
 * reading it would risk resurrecting rows that another commit removed, so the group fails instead
 * of reading blind.
 */
public class FileNotLiveException extends ApplicationException {
  public FileNotLiveException(String message) {
    super(message);
  }

  public FileNotLiveException(String message, Throwable cause) {
    super(message, cause);
  }
}
