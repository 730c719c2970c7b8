package io.icecompact.care.catalog;

import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Every table of a catalog, as its listing shows them: the sharing check's first pass, which reads
 * no table's metadata. Glue's listing gives each table's locations ({@link GlueCatalogListing});
 * Iceberg's generic listing gives names only ({@link NamespaceListing}), so each of those tables
 * must be loaded.
 */
public interface CatalogListing {
  /**
   * Every table but {@code self}, nested namespaces included.
   *
   * @throws ListingFailedException when a namespace or a page of tables cannot be listed (after
   *     {@link ThrottlingRetry}'s retries): a table in it may share files, so the caller refuses
   */
  List<ListedTable> tablesOtherThan(TableIdentifier self);

  /** A short name for reports, e.g. {@code Glue GetTables}. */
  String describe();
}
