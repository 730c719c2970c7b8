package io.icecompact.core.error;

/**
 * Thrown before anything is written when the job's input is unusable: an unknown or invalid option,
 * a malformed filter, an unknown table or catalog. The message names the bad field and the rule.
 */
public class InvalidJobInputException extends ApplicationException {
  public InvalidJobInputException(String message) {
    super(message);
  }

  public InvalidJobInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
