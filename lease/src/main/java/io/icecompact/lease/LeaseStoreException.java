package io.icecompact.lease;

import io.icecompact.core.error.ApplicationException;

/**
 * DynamoDB refused a lease or job-log request for a reason a retry cannot fix: the table does not
 * exist, access is denied, a request is invalid. (Throttling, 5xx answers and timeouts are {@link
 * io.icecompact.core.error.TransientException}s instead.)
 */
public class LeaseStoreException extends ApplicationException {
  public LeaseStoreException(String message) {
    super(message);
  }
}
