package io.icecompact.core.error;

/**
 * Thrown by the committer, before any commit, when the job's results break an invariant across the
 * whole job: an input file missing or rewritten twice, a file outside the plan, a missing or
 * resized output.
 */
public class JobInvariantViolationException extends ApplicationException {
  public JobInvariantViolationException(String message) {
    super(message);
  }

  public JobInvariantViolationException(String message, Throwable cause) {
    super(message, cause);
  }
}
