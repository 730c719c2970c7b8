package io.icecompact.core.error;

/**
 * Thrown when the stored plan or a group result is unreadable, belongs to another job, or disagrees
 * with the pinned snapshot (wrong schema, spec, snapshot, or delete files).
 */
public class PlanIntegrityException extends ApplicationException {
  public PlanIntegrityException(String message) {
    super(message);
  }

  public PlanIntegrityException(String message, Throwable cause) {
    super(message, cause);
  }
}
