package io.icecompact.core.error;

/** Thrown by a worker when writing a group's output fails for a reason a retry cannot fix. */
public class GroupRewriteException extends ApplicationException {
  public GroupRewriteException(String message) {
    super(message);
  }

  public GroupRewriteException(String message, Throwable cause) {
    super(message, cause);
  }
}
