package io.icecompact.care;

import io.icecompact.care.catalog.CatalogListing;
import io.icecompact.care.catalog.GlueCatalogListing;
import io.icecompact.care.catalog.NamespaceListing;
import io.icecompact.care.catalog.ThrottlingRetry;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import org.apache.iceberg.aws.glue.GlueCatalog;
import org.apache.iceberg.catalog.Catalog;

/**
 * How a destructive care step reaches the catalog's other tables for {@link SharingTables}: the
 * catalog (to load a table the listing names only, and to re-read sharers), its listing, the
 * deployment's locations (which tell the tables this deployment answers for from other teams'), and
 * the retry of throttled calls.
 *
 * @param catalog the table's catalog
 * @param listing its listing: Glue's with locations, or names only
 * @param scope the deployment's bounds; unrestricted: every table that cannot be read refuses
 * @param retry for throttled listing calls and loads
 */
public record SharingLookup(
    Catalog catalog, CatalogListing listing, DeploymentScope scope, ThrottlingRetry retry)
    implements AutoCloseable {

  /** Any catalog, listed by name, with no location bounds: every other table is loaded. */
  public static SharingLookup of(Catalog catalog) {
    ThrottlingRetry retry = ThrottlingRetry.standard();
    return new SharingLookup(
        catalog, new NamespaceListing(catalog, retry), DeploymentScope.unrestricted(), retry);
  }

  /**
   * The catalog of {@code access}: a Glue catalog listed with {@code GetTables} (locations
   * included, so only the tables the screen picks are read), any other by name.
   */
  public static SharingLookup of(TableAccess access, DeploymentScope scope) {
    ThrottlingRetry retry = ThrottlingRetry.standard();
    Catalog catalog = access.catalog();
    CatalogListing listing =
        catalog instanceof GlueCatalog
            ? GlueCatalogListing.of(access.catalogProperties(), retry)
            : new NamespaceListing(catalog, retry);
    return new SharingLookup(catalog, listing, scope, retry);
  }

  @Override
  public void close() {
    if (listing instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // a client that does not close cleanly holds nothing the step needs
      }
    }
  }
}
