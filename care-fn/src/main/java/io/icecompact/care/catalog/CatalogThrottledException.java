package io.icecompact.care.catalog;

/**
 * Thrown by {@link ThrottlingRetry#call} when the catalog throttled every attempt: the catalog was
 * too busy, not a table that may share files. The care step refuses on it (nothing deleted) and the
 * next run tries again.
 */
public final class CatalogThrottledException extends RuntimeException {
  public CatalogThrottledException(String message, Throwable cause) {
    super(message, cause);
  }
}
