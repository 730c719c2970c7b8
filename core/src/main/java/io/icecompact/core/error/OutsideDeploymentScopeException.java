package io.icecompact.core.error;

/**
 * The job names a table or a location this deployment may not touch ({@code ALLOWED_TABLES}, {@code
 * ALLOWED_LOCATIONS}). An invalid input like any other: refused before anything is written, never
 * retried.
 */
public final class OutsideDeploymentScopeException extends InvalidJobInputException {
  public OutsideDeploymentScopeException(String message) {
    super(message);
  }
}
