package io.icecompact.core.error;

/**
 * Thrown by a worker that found no free attempt number for its group: every number up to the limit
 * is marked as taken, which no bounded retry policy reaches, so something keeps re-running the
 * group.
 */
public class AttemptClaimException extends ApplicationException {
  public AttemptClaimException(String message) {
    super(message);
  }
}
