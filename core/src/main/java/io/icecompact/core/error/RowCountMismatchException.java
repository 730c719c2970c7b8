package io.icecompact.core.error;

/**
 * Thrown when rows written differ from rows read minus rows deleted: the rewrite would lose or
 * invent rows, so its output must never be committed.
 */
public class RowCountMismatchException extends ApplicationException {
  public RowCountMismatchException(String message) {
    super(message);
  }

  public RowCountMismatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
