package io.icecompact.care.catalog;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Any Iceberg catalog's listing: every namespace (nested ones too) and its tables, by name only
 * ({@link ListedTable.Kind#UNKNOWN}), since Iceberg's {@code listTables} says nothing of where a
 * table lives; each must be loaded. Each call is retried when throttled.
 */
public final class NamespaceListing implements CatalogListing {
  private final Catalog catalog;
  private final ThrottlingRetry retry;

  public NamespaceListing(Catalog catalog, ThrottlingRetry retry) {
    this.catalog = catalog;
    this.retry = retry;
  }

  @Override
  public List<ListedTable> tablesOtherThan(TableIdentifier self) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      throw new ListingFailedException(
          "the catalog " + catalog.getClass().getName() + " cannot list its namespaces", null);
    }
    List<ListedTable> tables = new ArrayList<>();
    Deque<Namespace> queue = new ArrayDeque<>();
    try {
      queue.addAll(retry.call("listing the namespaces", namespaces::listNamespaces));
    } catch (RuntimeException e) {
      throw new ListingFailedException(
          "the catalog's namespaces cannot be listed (" + describe(e) + ")", e);
    }
    while (!queue.isEmpty()) {
      Namespace namespace = queue.poll();
      try {
        for (TableIdentifier id :
            retry.call("listing namespace " + namespace, () -> catalog.listTables(namespace))) {
          if (!id.toString().equalsIgnoreCase(self.toString())) {
            tables.add(ListedTable.named(id));
          }
        }
        queue.addAll(
            retry.call(
                "listing namespace " + namespace, () -> namespaces.listNamespaces(namespace)));
      } catch (RuntimeException e) {
        throw new ListingFailedException(
            "namespace " + namespace + " cannot be listed (" + describe(e) + ")", e);
      }
    }
    return tables;
  }

  @Override
  public String describe() {
    return "the catalog's namespaces and tables";
  }

  static String describe(RuntimeException e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
