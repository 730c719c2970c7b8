package io.icecompact.care.catalog;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table as the catalog's listing shows it, before any load: what the sharing check can decide
 * without reading the table's metadata file.
 *
 * @param id the table's identifier in this catalog
 * @param kind what the entry is
 * @param location the table's location as listed (Glue's {@code StorageDescriptor.Location}), or
 *     null when the listing does not say
 * @param metadataLocation its current metadata file as listed (Glue's {@code
 *     Parameters.metadata_location}), or null
 * @param format for {@link Kind#OTHER_FORMAT}: its {@code table_type} or {@code TableType}, e.g.
 *     {@code EXTERNAL_TABLE}
 * @param lakeFormation Glue's {@code IsRegisteredWithLakeFormation}: reading its files may need
 *     Lake Formation permissions the care role lacks
 * @param target for {@link Kind#RESOURCE_LINK}: the linked table, {@code catalog/db.table}
 * @param targetInThisCatalog for a resource link: its target is listed by this catalog too (and so
 *     checked as itself)
 */
public record ListedTable(
    TableIdentifier id,
    Kind kind,
    String location,
    String metadataLocation,
    String format,
    boolean lakeFormation,
    String target,
    boolean targetInThisCatalog) {

  /** What a listed entry is. */
  public enum Kind {
    /** An Iceberg table ({@code table_type=ICEBERG}): its metadata says which files it reaches. */
    ICEBERG,
    /** A Hive, Delta, Hudi or other table: a location, but no Iceberg metadata to read. */
    OTHER_FORMAT,
    /** A Glue resource link: a name for a table of this or another catalog. */
    RESOURCE_LINK,
    /** A view: no files. */
    VIEW,
    /** Listed by name only (a catalog whose listing gives no locations): it must be loaded. */
    UNKNOWN
  }

  /** A table known by name only (Iceberg's {@code listTables}). */
  public static ListedTable named(TableIdentifier id) {
    return new ListedTable(id, Kind.UNKNOWN, null, null, null, false, null, false);
  }

  /** An Iceberg table with its listed locations (either may be null). */
  public static ListedTable iceberg(
      TableIdentifier id, String location, String metadataLocation, boolean lakeFormation) {
    return new ListedTable(
        id, Kind.ICEBERG, location, metadataLocation, null, lakeFormation, null, false);
  }

  /** A table of another format at {@code location}. */
  public static ListedTable otherFormat(
      TableIdentifier id, String location, String format, boolean lakeFormation) {
    return new ListedTable(
        id, Kind.OTHER_FORMAT, location, null, format, lakeFormation, null, false);
  }

  public static ListedTable resourceLink(
      TableIdentifier id, String target, boolean targetInThisCatalog) {
    return new ListedTable(
        id, Kind.RESOURCE_LINK, null, null, null, false, target, targetInThisCatalog);
  }

  public static ListedTable view(TableIdentifier id) {
    return new ListedTable(id, Kind.VIEW, null, null, null, false, null, false);
  }
}
