package io.icecompact.care;

import io.icecompact.core.error.ApplicationException;

/**
 * A care step refused to run because running it could delete live data: a minimum orphan age under
 * one day, a FileIO that cannot list, a data or metadata folder outside the table's location.
 * Nothing was deleted. The message names the rule.
 */
public class CareRefusedException extends ApplicationException {
  public CareRefusedException(String message) {
    super(message);
  }
}
