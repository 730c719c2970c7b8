package io.icecompact.care.catalog;

/**
 * Thrown by {@link CatalogListing#tablesOtherThan} when part of the catalog cannot be listed (a
 * namespace, a page of tables), after throttling was retried: the message names what could not be
 * listed and why. The sharing check refuses on it, since a table it did not see may share files.
 */
public final class ListingFailedException extends RuntimeException {
  public ListingFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
