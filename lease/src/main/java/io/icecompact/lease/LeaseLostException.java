package io.icecompact.lease;

import io.icecompact.core.error.ApplicationException;

/**
 * The caller no longer holds the lease it was granted: it expired, another owner took the table
 * over (with a higher fencing token), or it was released. The caller must stop before changing the
 * table; retrying the same step cannot give the lease back. The message says who holds it now.
 */
public class LeaseLostException extends ApplicationException {
  public LeaseLostException(String message) {
    super(message);
  }
}
