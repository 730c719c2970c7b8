package io.icecompact.core.table;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.PinnedSnapshot;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;

/**
 * How every stage reaches a table. The planner and committer go through the catalog; a worker loads
 * the pinned metadata file directly with a FileIO built from the same properties, so it needs
 * storage permissions only.
 */
public final class TableAccess implements AutoCloseable {
  private static final String CATALOG_NAME = "icecompact";
  private static final String RESOLVING_FILE_IO = "org.apache.iceberg.io.ResolvingFileIO";

  /**
   * Iceberg's {@code HttpClientProperties.CLIENT_TYPE}. The deployed functions carry only the AWS
   * SDK's url-connection client (the Apache and Netty clients are excluded to keep the Lambda jars
   * small), so it is the default unless the catalog properties choose another.
   */
  static final String HTTP_CLIENT_TYPE = "http-client.type";

  static final String HTTP_CLIENT_TYPE_DEFAULT = "urlconnection";

  private final Map<String, String> catalogProperties;
  private Catalog catalog;
  private FileIO fileIO;

  public TableAccess(Map<String, String> catalogProperties) {
    Map<String, String> properties =
        new HashMap<>(catalogProperties == null ? Map.of() : catalogProperties);
    properties.putIfAbsent(HTTP_CLIENT_TYPE, HTTP_CLIENT_TYPE_DEFAULT);
    if (onS3(properties)) {
      // Some catalogs (JDBC) default to HadoopFileIO, which the deployed functions do not carry.
      properties.putIfAbsent(CatalogProperties.FILE_IO_IMPL, CatalogFactory.S3_FILE_IO);
    }
    this.catalogProperties = Map.copyOf(properties);
  }

  /**
   * The catalog properties, with the defaults above applied: what a client of the catalog's own
   * service (the care steps' Glue listing) is built from.
   */
  public Map<String, String> catalogProperties() {
    return catalogProperties;
  }

  /** Iceberg's {@code AwsClientProperties.CLIENT_CREDENTIALS_PROVIDER}. */
  static final String CREDENTIALS_PROVIDER = "client.credentials-provider";

  /**
   * A second access to the same catalog and storage whose AWS calls carry the credentials of {@code
   * role} assumed with {@code policy}: S3 writes and deletes only under the policy's folders,
   * everything else as the role allows. Built after the table is loaded (the policy names its
   * folders); the caller closes it. The temporary keys stay inside the provider Iceberg creates
   * ({@link SessionPolicyCredentialsProvider}): these properties hold the role and the policy only,
   * neither of them secret.
   */
  public TableAccess scopedTo(TableAccessRole role, TableSessionPolicy policy) {
    String prefix = CREDENTIALS_PROVIDER + ".";
    Map<String, String> properties = new HashMap<>(catalogProperties);
    properties.put(CREDENTIALS_PROVIDER, SessionPolicyCredentialsProvider.class.getName());
    properties.put(prefix + SessionPolicyCredentialsProvider.ROLE_ARN, role.roleArn());
    properties.put(prefix + SessionPolicyCredentialsProvider.POLICY, policy.json());
    properties.put(
        prefix + SessionPolicyCredentialsProvider.SESSION_NAME,
        "icecompact-" + policy.stage().name().toLowerCase(Locale.ROOT));
    if (role.stsEndpoint() != null) {
      properties.put(
          prefix + SessionPolicyCredentialsProvider.STS_ENDPOINT, role.stsEndpoint().toString());
    }
    return new TableAccess(properties);
  }

  /**
   * {@link #scopedTo} {@code role} with the policy {@code stage} needs on {@code table}; this same
   * access when no role is named (the embedded runner, the CLI) or the table is not on S3 (nothing
   * to scope).
   */
  public TableAccess scopedFor(
      Optional<TableAccessRole> role,
      Table table,
      String workFolder,
      TableSessionPolicy.Stage stage) {
    if (role.isEmpty()) {
      return this;
    }
    return TableSessionPolicy.of(table, workFolder, stage)
        .map(policy -> scopedTo(role.get(), policy))
        .orElse(this);
  }

  /**
   * {@link #scopedFor(Optional, Table, String, TableSessionPolicy.Stage)} for the table named
   * {@code tableName}, loaded through this access only when a role is named: without one, no
   * catalog call is added to the stage's.
   */
  public TableAccess scopedFor(
      Optional<TableAccessRole> role,
      String tableName,
      String workFolder,
      TableSessionPolicy.Stage stage) {
    if (role.isEmpty()) {
      return this;
    }
    return scopedFor(role, loadTable(tableName), workFolder, stage);
  }

  /**
   * {@link #scopedTo} {@code role} with a policy that writes under {@code workFolder} only: a stage
   * that writes job documents and no table file ({@code RecordGroupFailure}).
   */
  public TableAccess scopedToWorkLocation(Optional<TableAccessRole> role, String workFolder) {
    if (role.isEmpty()) {
      return this;
    }
    return TableSessionPolicy.ofWorkLocation(workFolder)
        .map(policy -> scopedTo(role.get(), policy))
        .orElse(this);
  }

  /** The catalog, created on first use and kept open until {@link #close()}. */
  public synchronized Catalog catalog() {
    if (catalog == null) {
      catalog = newCatalog();
    }
    return catalog;
  }

  private Catalog newCatalog() {
    return CatalogFactory.catalog(CATALOG_NAME, catalogProperties);
  }

  /** Loads the table through the catalog; an unknown or malformed identifier is bad input. */
  public Table loadTable(String identifier) {
    if (identifier == null || identifier.isBlank()) {
      throw new InvalidJobInputException("Table identifier is missing (e.g. 'analytics.orders')");
    }
    TableIdentifier id;
    try {
      id = TableIdentifier.parse(identifier);
    } catch (IllegalArgumentException e) {
      throw new InvalidJobInputException("Malformed table identifier '" + identifier + "'", e);
    }
    Catalog catalog = catalog();
    try {
      return catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      throw new InvalidJobInputException("Table not found: " + identifier, e);
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot load table " + identifier, InvalidJobInputException::new);
    }
  }

  /**
   * Loads the table exactly as it was at {@code pinned}, from its metadata file, with no catalog
   * call. Fails when that metadata's current snapshot is not the pinned one.
   */
  public Table loadPinned(String tableName, PinnedSnapshot pinned) {
    Table table;
    try {
      // Without a location provider a static table cannot name new data files.
      TableMetadata metadata = TableMetadataParser.read(fileIO(), pinned.metadataLocation());
      table =
          new BaseTable(
              new StaticTableOperations(
                  metadata,
                  fileIO(),
                  LocationProviders.locationsFor(metadata.location(), metadata.properties())),
              tableName);
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(
          e,
          "Cannot read pinned metadata " + pinned.metadataLocation(),
          PlanIntegrityException::new);
    }
    if (table.currentSnapshot() == null
        || table.currentSnapshot().snapshotId() != pinned.snapshotId()) {
      throw new PlanIntegrityException(
          String.format(
              "Metadata %s has current snapshot %s, but the job pinned %d",
              pinned.metadataLocation(),
              table.currentSnapshot() == null ? "none" : table.currentSnapshot().snapshotId(),
              pinned.snapshotId()));
    }
    return table;
  }

  /**
   * The FileIO named by {@code io-impl} (S3FileIO by default for a Glue catalog or an S3
   * warehouse), else Iceberg's ResolvingFileIO.
   */
  public synchronized FileIO fileIO() {
    if (fileIO == null) {
      fileIO = newFileIO();
    }
    return fileIO;
  }

  private FileIO newFileIO() {
    String impl = catalogProperties.getOrDefault(CatalogProperties.FILE_IO_IMPL, RESOLVING_FILE_IO);
    try {
      return CatalogFactory.fileIO(impl, catalogProperties);
    } catch (RuntimeException e) {
      throw new InvalidJobInputException(
          "Cannot create FileIO '" + impl + "': " + e.getMessage(), e);
    }
  }

  /** A Glue catalog or an S3 warehouse: S3FileIO, unless the properties name another FileIO. */
  private static boolean onS3(Map<String, String> properties) {
    String type = properties.getOrDefault(CatalogUtil.ICEBERG_CATALOG_TYPE, "");
    String warehouse = properties.getOrDefault(CatalogProperties.WAREHOUSE_LOCATION, "");
    return type.equalsIgnoreCase(CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE)
        || warehouse.toLowerCase(Locale.ROOT).startsWith("s3");
  }

  /** The metadata file the table's current state was read from. */
  public static String metadataLocation(Table table) {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }

  @Override
  public synchronized void close() {
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception ignored) {
        // closing releases connections only; nothing of the job depends on it
      }
    }
    if (fileIO != null) {
      fileIO.close();
    }
    catalog = null;
    fileIO = null;
  }
}
