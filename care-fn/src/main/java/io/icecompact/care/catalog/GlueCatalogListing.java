package io.icecompact.care.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.aws.AwsClientFactories;
import org.apache.iceberg.aws.AwsProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Database;
import software.amazon.awssdk.services.glue.model.GetDatabasesResponse;
import software.amazon.awssdk.services.glue.model.GetTableResponse;
import software.amazon.awssdk.services.glue.model.GetTablesResponse;
import software.amazon.awssdk.services.glue.model.Table;

/**
 * A Glue Data Catalog's listing from {@code GetDatabases} and {@code GetTables} (100 tables a
 * call): each table's {@code StorageDescriptor.Location} and {@code Parameters.metadata_location}
 * come with the listing, so the sharing check screens a catalog of a thousand tables with about ten
 * calls and no S3 read, and loads only the tables the screen asks for.
 *
 * <p>The client is Iceberg's own ({@code AwsClientFactories.from(properties).glue()}): {@code
 * glue.endpoint}, {@code glue.id}, the region and the credentials apply exactly as in Iceberg's
 * {@code GlueCatalog}. Every call is retried when throttled ({@link ThrottlingRetry}).
 *
 * <p>Each entry becomes a {@link ListedTable}: {@code table_type=ICEBERG} an Iceberg table; a
 * {@code VIRTUAL_VIEW} a view; a {@code TargetTable} a resource link, whose target, when in another
 * catalog, is read with {@code GetTable} on that catalog's id (a link whose target cannot be read
 * stays a link, which the screen names); anything else a table of another format.
 */
public final class GlueCatalogListing implements CatalogListing, AutoCloseable {
  static final String METADATA_LOCATION = "metadata_location";
  static final String TABLE_TYPE = "table_type";
  static final String ICEBERG = "ICEBERG";
  static final String VIRTUAL_VIEW = "VIRTUAL_VIEW";
  private static final int PAGE = 100;

  private final GlueClient glue;
  private final String catalogId;
  private final ThrottlingRetry retry;

  /**
   * @param glue the client (closed with this listing)
   * @param catalogId {@code glue.id}, or null for the caller's account
   */
  public GlueCatalogListing(GlueClient glue, String catalogId, ThrottlingRetry retry) {
    this.glue = glue;
    this.catalogId = catalogId;
    this.retry = retry;
  }

  /** The listing of the Glue catalog {@code catalogProperties} describe, with Iceberg's client. */
  public static GlueCatalogListing of(
      Map<String, String> catalogProperties, ThrottlingRetry retry) {
    return new GlueCatalogListing(
        AwsClientFactories.from(catalogProperties).glue(),
        catalogProperties.get(AwsProperties.GLUE_CATALOG_ID),
        retry);
  }

  @Override
  public List<ListedTable> tablesOtherThan(TableIdentifier self) {
    List<ListedTable> tables = new ArrayList<>();
    for (String database : databases()) {
      String token = null;
      do {
        String next = token;
        GetTablesResponse page;
        try {
          page =
              retry.call(
                  "Glue GetTables of database " + database,
                  () ->
                      glue.getTables(
                          r ->
                              r.catalogId(catalogId)
                                  .databaseName(database)
                                  .maxResults(PAGE)
                                  .nextToken(next)));
        } catch (RuntimeException e) {
          throw new ListingFailedException(
              "the tables of Glue database " + database + " cannot be listed (" + describe(e) + ")",
              e);
        }
        for (Table table : page.tableList()) {
          TableIdentifier id = TableIdentifier.of(database, table.name());
          if (!id.toString().equalsIgnoreCase(self.toString())) {
            tables.add(listed(id, table));
          }
        }
        token = page.nextToken();
      } while (token != null && !token.isEmpty());
    }
    return tables;
  }

  @Override
  public String describe() {
    return "Glue GetDatabases and GetTables";
  }

  private List<String> databases() {
    List<String> names = new ArrayList<>();
    String token = null;
    do {
      String next = token;
      GetDatabasesResponse page;
      try {
        page =
            retry.call(
                "Glue GetDatabases",
                () ->
                    glue.getDatabases(
                        r -> r.catalogId(catalogId).maxResults(PAGE).nextToken(next)));
      } catch (RuntimeException e) {
        throw new ListingFailedException(
            "the Glue databases cannot be listed (" + describe(e) + ")", e);
      }
      page.databaseList().stream().map(Database::name).forEach(names::add);
      token = page.nextToken();
    } while (token != null && !token.isEmpty());
    return names;
  }

  private ListedTable listed(TableIdentifier id, Table table) {
    if (table.targetTable() != null) {
      var target = table.targetTable();
      String targetCatalog = target.catalogId() != null ? target.catalogId() : catalogId;
      String name =
          (targetCatalog == null ? "this catalog" : targetCatalog)
              + "/"
              + target.databaseName()
              + "."
              + target.name();
      boolean here = target.catalogId() == null || Objects.equals(target.catalogId(), catalogId);
      if (here) {
        return ListedTable.resourceLink(id, name, true);
      }
      try {
        GetTableResponse read =
            retry.call(
                "Glue GetTable of " + name,
                () ->
                    glue.getTable(
                        r ->
                            r.catalogId(target.catalogId())
                                .databaseName(target.databaseName())
                                .name(target.name())));
        ListedTable resolved = listed(id, read.table());
        return resolved.kind() == ListedTable.Kind.RESOURCE_LINK
            ? ListedTable.resourceLink(id, name, false)
            : resolved;
      } catch (RuntimeException e) {
        return ListedTable.resourceLink(id, name + " (" + describe(e) + ")", false);
      }
    }
    Map<String, String> parameters = table.hasParameters() ? table.parameters() : Map.of();
    String location =
        table.storageDescriptor() == null ? null : table.storageDescriptor().location();
    boolean lakeFormation = Boolean.TRUE.equals(table.isRegisteredWithLakeFormation());
    String type = parameters.get(TABLE_TYPE);
    if (type != null && ICEBERG.equals(type.toUpperCase(Locale.ROOT))) {
      return ListedTable.iceberg(id, location, parameters.get(METADATA_LOCATION), lakeFormation);
    }
    if (VIRTUAL_VIEW.equals(table.tableType())) {
      return ListedTable.view(id);
    }
    return ListedTable.otherFormat(
        id, location, type != null ? type : table.tableType(), lakeFormation);
  }

  private static String describe(RuntimeException e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  @Override
  public void close() {
    glue.close();
  }
}
