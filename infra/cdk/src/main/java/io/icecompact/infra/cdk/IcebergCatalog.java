package io.icecompact.infra.cdk;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The Iceberg catalog of the compacted tables, with the SAM template's semantics (parameters
 * CatalogType, CatalogPropertiesJson, GlueDatabase, CatalogDynamoDbTable): the type decides the
 * catalog permissions of the planner and committer (the workers never get any), the properties
 * become the schedules' {@code catalog_properties}. Glue and DynamoDB catalogs derive their
 * properties from the warehouse unless given; REST and JDBC catalogs need them. The properties land
 * in schedules and execution histories: no secrets.
 */
public final class IcebergCatalog {
  /** Iceberg's DynamoDB catalog implementation, named by {@code catalog-impl}. */
  static final String DYNAMODB_CATALOG_IMPL = "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog";

  public enum Type {
    GLUE,
    DYNAMODB,
    REST,
    JDBC
  }

  /** The SAM template's GlueDatabase pattern: a name, or {@code *} asked for explicitly. */
  private static final java.util.regex.Pattern GLUE_DATABASE =
      java.util.regex.Pattern.compile("^\\*$|^[A-Za-z0-9_-]{1,255}$");

  private final Type type;
  private final List<String> glueDatabases;
  private final List<String> glueTables;
  private final String dynamoDbTable;
  private final Map<String, String> properties;

  private IcebergCatalog(
      Type type,
      List<String> glueDatabases,
      List<String> glueTables,
      String dynamoDbTable,
      Map<String, String> properties) {
    this.type = type;
    this.glueDatabases = List.copyOf(glueDatabases);
    this.glueTables = List.copyOf(glueTables);
    this.dynamoDbTable = dynamoDbTable;
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  /**
   * The Glue Data Catalog; the planner, committer, CareForTable and AssessTables may use this
   * database and its tables only. {@code *} grants every database of the account, which lets the
   * committer update any Glue table: there is no default, the database is named on purpose.
   */
  public static IcebergCatalog glue(String database) {
    return glue(List.of(Objects.requireNonNull(database, "database")));
  }

  /**
   * The Glue Data Catalog with several databases (the SAM template takes one): the grants name each
   * and its tables. {@code *} only alone.
   */
  public static IcebergCatalog glue(List<String> databases) {
    if (databases.isEmpty()) {
      throw new IllegalArgumentException(
          "'databases' is empty: name the Glue databases of the tables");
    }
    for (String database : databases) {
      requireNonBlank("database", database);
      if (!GLUE_DATABASE.matcher(database).matches()) {
        throw new IllegalArgumentException(
            "'database' is set to '"
                + database
                + "' but must match "
                + GLUE_DATABASE.pattern()
                + " (the SAM template's GlueDatabase)");
      }
    }
    if (databases.contains("*") && databases.size() > 1) {
      throw new IllegalArgumentException(
          "'databases' " + databases + " holds '*' with others: '*' is every database");
    }
    if (new java.util.HashSet<>(databases).size() != databases.size()) {
      throw new IllegalArgumentException("'databases' " + databases + " names a database twice");
    }
    return new IcebergCatalog(Type.GLUE, databases, List.of(), null, Map.of());
  }

  /**
   * The same Glue catalog with its table grants narrowed to these tables ({@code database.table},
   * each in one of the catalog's databases) instead of every table of the databases. The sweep's
   * AssessTables then cannot list a database (Glue's GetTables needs every table of it): schedule
   * tables rather than sweep namespaces.
   */
  public IcebergCatalog onlyTables(List<String> tables) {
    if (type != Type.GLUE) {
      throw new IllegalArgumentException("onlyTables is for a Glue catalog, not " + type);
    }
    if (tables.isEmpty()) {
      throw new IllegalArgumentException(
          "'tables' is empty: leave it out to grant every table of the databases");
    }
    for (String table : tables) {
      Objects.requireNonNull(table, "table");
      int dot = table.indexOf('.');
      if (dot <= 0
          || dot != table.lastIndexOf('.')
          || dot == table.length() - 1
          || !glueDatabases.contains(table.substring(0, dot))
          || table.contains("*")) {
        throw new IllegalArgumentException(
            "table '"
                + table
                + "' must be <database>.<table> with a database of "
                + glueDatabases
                + " and no '*'");
      }
    }
    return new IcebergCatalog(type, glueDatabases, tables, dynamoDbTable, properties);
  }

  /**
   * The functions' {@code ALLOWED_TABLES} (checked before any write, see DeploymentScope): the Glue
   * tables or databases granted; empty (any table) for the other catalogs, whose tables IAM cannot
   * name either.
   */
  public String allowedTables() {
    if (type != Type.GLUE) {
      return "";
    }
    return String.join(
        ",",
        glueTables.isEmpty()
            ? glueDatabases.stream().map(database -> database + ".*").toList()
            : glueTables);
  }

  /**
   * Iceberg's DynamoDbCatalog on this DynamoDB table (Iceberg's default name is {@code iceberg}).
   */
  public static IcebergCatalog dynamoDb(String tableName) {
    requireNonBlank("tableName", tableName);
    return new IcebergCatalog(Type.DYNAMODB, List.of(), List.of(), tableName, Map.of());
  }

  /**
   * A REST catalog (S3 Tables, Glue's Iceberg REST endpoint, Polaris, ...). No AWS permission is
   * granted for it: give the construct a {@code catalogAccessPolicy} if it needs some. {@code
   * type=rest} is added unless the properties name a {@code type} or {@code catalog-impl} (the
   * execution input requires one of them).
   */
  public static IcebergCatalog rest(Map<String, String> properties) {
    return new IcebergCatalog(
        Type.REST, List.of(), List.of(), null, withImplied(properties, Type.REST));
  }

  /**
   * A JDBC catalog (the functions need its driver, see docs/deploy.md); like {@link #rest}
   * otherwise.
   */
  public static IcebergCatalog jdbc(Map<String, String> properties) {
    return new IcebergCatalog(
        Type.JDBC, List.of(), List.of(), null, withImplied(properties, Type.JDBC));
  }

  /**
   * The same catalog (and grants) with these {@code catalog_properties} instead of derived ones, as
   * CatalogPropertiesJson does; {@code type} (or DynamoDB's {@code catalog-impl}) is added when
   * missing.
   */
  public IcebergCatalog withProperties(Map<String, String> catalogProperties) {
    return new IcebergCatalog(
        type, glueDatabases, glueTables, dynamoDbTable, withImplied(catalogProperties, type));
  }

  public Type type() {
    return type;
  }

  /** The Glue databases the grants name; empty for other catalogs. */
  public List<String> glueDatabases() {
    return glueDatabases;
  }

  /**
   * The tables ({@code database.table}) the grants are narrowed to; empty = every table of the
   * databases.
   */
  public List<String> glueTables() {
    return glueTables;
  }

  /** The DynamoDbCatalog's table, or null for other catalogs. */
  public String dynamoDbTable() {
    return dynamoDbTable;
  }

  /** The properties given, empty when they are derived. */
  public Map<String, String> properties() {
    return properties;
  }

  /**
   * The schedules' {@code catalog_properties} for a warehouse location such as {@code
   * s3://bucket/warehouse/}.
   */
  public Map<String, String> catalogProperties(String warehouseLocation) {
    if (!properties.isEmpty()) {
      return properties;
    }
    Map<String, String> derived = new LinkedHashMap<>();
    switch (type) {
      case GLUE -> derived.put("type", "glue");
      case DYNAMODB -> {
        derived.put("catalog-impl", DYNAMODB_CATALOG_IMPL);
        derived.put("dynamodb.table-name", dynamoDbTable);
      }
      default ->
          throw new IllegalStateException("a " + type + " catalog has no derived properties");
    }
    derived.put("warehouse", warehouseLocation);
    return derived;
  }

  /**
   * The properties, with the catalog's {@code type} (or DynamoDB's {@code catalog-impl}) added if
   * neither is set.
   */
  private static Map<String, String> withImplied(Map<String, String> properties, Type type) {
    Objects.requireNonNull(properties, "properties");
    if (properties.isEmpty()) {
      throw new IllegalArgumentException(
          "'properties' is empty but a "
              + type
              + " catalog needs its catalog properties (uri, warehouse, ...)");
    }
    properties.forEach(
        (key, value) -> {
          if (key == null || value == null) {
            throw new IllegalArgumentException(
                "catalog properties may not hold null: " + key + "=" + value);
          }
        });
    if (properties.containsKey("type") || properties.containsKey("catalog-impl")) {
      return properties;
    }
    Map<String, String> typed = new LinkedHashMap<>();
    if (type == Type.DYNAMODB) {
      typed.put("catalog-impl", DYNAMODB_CATALOG_IMPL);
    } else {
      typed.put("type", type.name().toLowerCase(java.util.Locale.ROOT));
    }
    typed.putAll(properties);
    return typed;
  }

  private static void requireNonBlank(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("'" + name + "' is blank");
    }
  }

  @Override
  public String toString() {
    return "IcebergCatalog["
        + type
        + (glueDatabases.isEmpty() ? "" : ", databases " + glueDatabases)
        + (glueTables.isEmpty() ? "" : ", tables " + glueTables)
        + (dynamoDbTable != null ? ", table " + dynamoDbTable : "")
        + ", "
        + properties.keySet()
        + "]";
  }
}
