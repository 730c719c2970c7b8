package io.icecompact.core.error;

/**
 * STS refused to issue the scoped session for a table ({@code TABLE_ACCESS_ROLE_ARN}): the role is
 * not assumable by this function, does not exist, or refused the session policy. A deployment
 * error, identical on a retry; a throttled or unreachable STS is a {@link TransientException}
 * instead. Nothing was written with the function's own credentials.
 */
public final class TableAccessRoleException extends ApplicationException {
  public TableAccessRoleException(String message, Throwable cause) {
    super(message, cause);
  }
}
