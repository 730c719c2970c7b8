package io.icecompact.core.scope;

import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccessRole;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;

/**
 * The tables and locations one deployment may touch, whatever an execution input asks: every
 * function checks the job against it before it writes anything, so that a caller allowed to start
 * executions (or to invoke one function directly) cannot point the deployment at another table or
 * bucket. IAM bounds the same things from outside; this check gives a clear error instead of an
 * AccessDenied halfway through a job, and also bounds catalogs IAM cannot see (REST, JDBC).
 *
 * <p>From the environment: {@code ALLOWED_TABLES}, comma-separated patterns {@code namespace.table}
 * in which a part {@code *} matches any one part ({@code analytics.*}, {@code *.*}); {@code
 * ALLOWED_LOCATIONS}, comma-separated location prefixes ({@code s3://bucket/warehouse/}). An unset
 * or empty variable allows everything: the embedded runner and a deployment that chose no bound.
 * {@code CATALOG_PROPERTIES}: the deployed catalog ({@link DeployedCatalog}), which an input may
 * not change; every step reaches the table through {@link #catalogProperties}. {@code
 * TABLE_ACCESS_ROLE_ARN}: the role every stage writes through, assumed with the table's session
 * policy ({@link TableAccessRole}); unset, a stage writes with its own credentials.
 *
 * @param tablePatterns each pattern split into its parts; empty = any table
 * @param locationPrefixes location prefixes, each ending with "/"; empty = any location
 * @param catalog the deployed catalog; none = each input names its own
 * @param tableAccessRole the role writes go through; empty = the function's own credentials
 */
public record DeploymentScope(
    List<List<String>> tablePatterns,
    List<String> locationPrefixes,
    DeployedCatalog catalog,
    Optional<TableAccessRole> tableAccessRole) {
  public static final String ALLOWED_TABLES_ENV = "ALLOWED_TABLES";
  public static final String ALLOWED_LOCATIONS_ENV = "ALLOWED_LOCATIONS";

  public DeploymentScope {
    tablePatterns = List.copyOf(tablePatterns);
    locationPrefixes = List.copyOf(locationPrefixes);
    catalog = catalog == null ? DeployedCatalog.none() : catalog;
    tableAccessRole = tableAccessRole == null ? Optional.empty() : tableAccessRole;
  }

  public DeploymentScope(List<List<String>> tablePatterns, List<String> locationPrefixes) {
    this(tablePatterns, locationPrefixes, DeployedCatalog.none(), Optional.empty());
  }

  public static DeploymentScope unrestricted() {
    return new DeploymentScope(List.of(), List.of());
  }

  /** The same bounds with {@code catalog} deployed. */
  public DeploymentScope withCatalog(DeployedCatalog catalog) {
    return new DeploymentScope(tablePatterns, locationPrefixes, catalog, tableAccessRole);
  }

  /** The same bounds, every stage writing through {@code role}. */
  public DeploymentScope withTableAccessRole(TableAccessRole role) {
    return new DeploymentScope(tablePatterns, locationPrefixes, catalog, Optional.of(role));
  }

  public static DeploymentScope fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  static DeploymentScope fromEnvironment(Map<String, String> environment) {
    return parse(environment.get(ALLOWED_TABLES_ENV), environment.get(ALLOWED_LOCATIONS_ENV))
        .withCatalog(DeployedCatalog.parse(environment.get(DeployedCatalog.CATALOG_PROPERTIES_ENV)))
        .withRole(TableAccessRole.fromEnvironment(environment));
  }

  private DeploymentScope withRole(Optional<TableAccessRole> role) {
    return new DeploymentScope(tablePatterns, locationPrefixes, catalog, role);
  }

  /**
   * Parses the two variables' values; a malformed one is a deployment error, thrown at cold start.
   */
  public static DeploymentScope parse(String allowedTables, String allowedLocations) {
    List<List<String>> tables =
        entries(allowedTables).stream().map(DeploymentScope::tablePattern).toList();
    List<String> locations =
        entries(allowedLocations).stream().map(DeploymentScope::locationPrefix).toList();
    return new DeploymentScope(tables, locations);
  }

  /**
   * The job's table, its catalog properties and its work location when it names one; the planner
   * checks the rest once it knows them.
   */
  public void check(JobSpec job) {
    checkTable(job.table());
    catalogProperties(job.catalogProperties());
    if (job.workLocation() != null && !job.workLocation().isBlank()) {
      checkLocation("work_location", job.workLocation());
    }
  }

  /**
   * The catalog properties every step reaches the table with, for an input that asked for {@code
   * requested}: the deployed catalog's when there is one ({@link DeployedCatalog#resolve}, which
   * refuses an input that would change them), else the input's.
   */
  public Map<String, String> catalogProperties(Map<String, String> requested) {
    return catalog.resolve(requested, "catalog_properties");
  }

  public void checkTable(String table) {
    if (tablePatterns.isEmpty()) {
      return;
    }
    List<String> parts = table == null ? List.of() : Arrays.asList(table.split("\\.", -1));
    if (tablePatterns.stream().noneMatch(pattern -> matches(pattern, parts))) {
      throw new OutsideDeploymentScopeException(
          "Table '"
              + table
              + "' is outside this deployment's allowed tables "
              + patternsText()
              + " ("
              + ALLOWED_TABLES_ENV
              + "); nothing was written");
    }
  }

  /**
   * The loaded table's location and its data location (a table property such as {@code
   * write.data.path} may put data files outside the table's location): every step that writes the
   * table checks them, since the execution input names the table, not where it lives.
   */
  public void checkTableLocations(Table table) {
    checkLocation("table location", table.location());
    checkLocation(
        "table's data location", table.locationProvider().newDataLocation("probe.parquet"));
  }

  /**
   * A location the job would write under (its work location, the table's location). Refused when it
   * is under no allowed prefix, or has a {@code ..} or {@code .} segment: S3 keeps such keys
   * literally but Hadoop and local file systems resolve them, so a prefix check on the text would
   * not bound them.
   */
  public void checkLocation(String what, String location) {
    if (locationPrefixes.isEmpty()) {
      return;
    }
    boolean dotSegment = hasDotSegment(location);
    if (dotSegment || !isUnderPrefix(location)) {
      throw new OutsideDeploymentScopeException(
          "The "
              + what
              + " '"
              + location
              + "' is outside this deployment's allowed locations "
              + locationPrefixes
              + " ("
              + ALLOWED_LOCATIONS_ENV
              + ")"
              + (dotSegment ? ": it has a '.' or '..' segment" : "")
              + "; nothing was written");
    }
  }

  /**
   * Whether {@code location} is inside this deployment's locations, as {@link #checkLocation}
   * decides (true for any location when no prefix is set, false for null): the care steps' sharing
   * check tells the catalog's tables this deployment answers for from those of other teams by it.
   */
  public boolean contains(String location) {
    if (locationPrefixes.isEmpty()) {
      return location != null;
    }
    return !hasDotSegment(location) && isUnderPrefix(location);
  }

  private static boolean hasDotSegment(String location) {
    return location != null
        && Arrays.stream(location.split("/")).anyMatch(s -> s.equals("..") || s.equals("."));
  }

  private boolean isUnderPrefix(String location) {
    return location != null
        && locationPrefixes.stream().anyMatch(p -> (sameScheme(location) + "/").startsWith(p));
  }

  /**
   * {@code s3a://} and {@code s3n://} as {@code s3://}: the same bucket to S3 and to S3FileIO, and
   * tables written through Hadoop's S3A (open-source Spark, Flink) carry {@code s3a://} locations
   * in their metadata.
   */
  private static String sameScheme(String location) {
    return location.replaceFirst("^s3[an]://", "s3://");
  }

  private static boolean matches(List<String> pattern, List<String> parts) {
    if (pattern.size() != parts.size()) {
      return false;
    }
    for (int i = 0; i < pattern.size(); i++) {
      if (!pattern.get(i).equals("*") && !pattern.get(i).equals(parts.get(i))) {
        return false;
      }
    }
    return true;
  }

  private String patternsText() {
    return tablePatterns.stream().map(p -> String.join(".", p)).toList().toString();
  }

  private static List<String> entries(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private static List<String> tablePattern(String text) {
    List<String> parts = Arrays.asList(text.split("\\.", -1));
    if (parts.size() < 2 || parts.stream().anyMatch(String::isEmpty)) {
      throw new IllegalArgumentException(
          ALLOWED_TABLES_ENV + " entry '" + text + "' is not namespace.table (a part may be *)");
    }
    return parts;
  }

  private static String locationPrefix(String text) {
    if (!text.matches("^[a-z][a-z0-9+.-]*://[^/]+.*")) {
      throw new IllegalArgumentException(
          ALLOWED_LOCATIONS_ENV
              + " entry '"
              + text
              + "' is not a location such as s3://bucket/prefix/");
    }
    // a prefix ends at a folder boundary: s3://b/wh allows s3://b/wh/t, not s3://b/wh-other/t
    String prefix = sameScheme(text);
    return prefix.endsWith("/") ? prefix : prefix + "/";
  }
}
