package io.icecompact.statemachine.deployedjars;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.statemachine.ClassPathJars;
import io.icecompact.testkit.LocalAwsCredentials;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.NotFoundCatalogServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deployable jars, as built, against every catalog infra/template.yaml offers ({@code
 * CatalogType} glue, dynamodb, rest, jdbc): the planner's, committer's and care's (CareForTable)
 * jar each in a fresh JVM (its class path the jar, not this module's, which carries Hadoop and
 * every SDK client) creating each catalog through icecompact's {@link TableAccess} with the catalog
 * properties the template's schedules pass, then making a real call: DynamoDB and JDBC catalogs
 * load a table and commit to it (local DynamoDB, SQLite, local S3); Glue and REST, which have no
 * local implementation, ask a local endpoint that knows no table and must understand its "no such
 * table". A class left out of a jar shows up here as a NoClassDefFoundError, not in production.
 *
 * <p>Runs in the integration-test phase (after the function modules' {@code package}), not with
 * {@code mvn test}, which builds no jar.
 */
class DeployedJarCatalogsIT {
  private static final String TABLE = "db.orders";
  private static final FragmentedTable.Shape SHAPE =
      new FragmentedTable.Shape(2, 2, 200, 2, 1, 5, true);

  /** What a missing or mismatched class looks like, at any depth of the cause chain. */
  private static final Set<String> LINKAGE_ERRORS =
      Set.of(
          "java.lang.NoClassDefFoundError",
          "java.lang.ClassNotFoundException",
          "java.lang.LinkageError",
          "java.lang.NoSuchMethodError",
          "java.lang.NoSuchFieldError",
          "java.lang.AbstractMethodError",
          "java.lang.IncompatibleClassChangeError",
          "java.lang.ExceptionInInitializerError",
          "java.lang.UnsatisfiedLinkError");

  private static final String NO_SUCH_TABLE = "org.apache.iceberg.exceptions.NoSuchTableException";

  private static Path root;
  private static LocalS3 s3;
  private static LocalDynamoDb dynamo;
  private static NotFoundCatalogServer notFoundServer;
  private static String warehouse;
  private static Path sqliteCatalog;
  private static Table dynamoDbTable;

  @TempDir static Path dir;

  @BeforeAll
  static void tablesInADynamoDbAndAJdbcCatalog() {
    root = Path.of(System.getProperty("icecompact.repository.dir")).toAbsolutePath().normalize();
    s3 = new LocalS3().start();
    dynamo = new LocalDynamoDb().start();
    notFoundServer = new NotFoundCatalogServer();
    warehouse = "s3://" + s3.createBucket("warehouse") + "/warehouse/";
    sqliteCatalog = dir.resolve("catalog.db");
    // Created on this class path, which has every catalog; the jars only load and commit.
    try (TableAccess dynamoDb = new TableAccess(withTestCredentials(dynamoDbCatalog()));
        TableAccess jdbc = new TableAccess(withTestCredentials(jdbcCatalog()))) {
      dynamoDbTable =
          FragmentedTable.create(dynamoDb.catalog(), TableIdentifier.parse(TABLE), SHAPE);
      FragmentedTable.create(jdbc.catalog(), TableIdentifier.parse(TABLE), SHAPE);
    }
  }

  @AfterAll
  static void stop() {
    if (notFoundServer != null) {
      notFoundServer.close();
    }
    if (dynamo != null) {
      dynamo.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"planner-fn", "committer-fn", "care-fn"})
  void everyCatalogOfTheTemplateWorksFromTheJar(String module) throws Exception {
    // JDBC drivers are not shipped (docs/deploy.md): a deployment adds one next to the jar, as
    // here.
    DeployedJar jar = DeployedJar.of(root, module, List.of(ClassPathJars.find("sqlite-jdbc")));
    Map<String, Map<String, String>> cases = new LinkedHashMap<>();
    cases.put("glue", with(glueCatalog(), CatalogProbe.LOAD, TABLE));
    cases.put(
        "dynamodb",
        with(dynamoDbCatalog(), CatalogProbe.LOAD, TABLE, CatalogProbe.SET_PROPERTY, module));
    cases.put("rest", with(restCatalog(), CatalogProbe.LOAD, TABLE));
    cases.put(
        "jdbc", with(jdbcCatalog(), CatalogProbe.LOAD, TABLE, CatalogProbe.SET_PROPERTY, module));
    int requestsBefore = notFoundServer.requests().size();

    Properties outcomes =
        jar.probe(cases, lambdaEnvironment(), Files.createDirectories(dir.resolve(module)));

    for (String name : cases.keySet()) {
      assertThat(outcomes.getProperty(name + ".error.classes", "").split(","))
          .as(
              "%s catalog from %s: %s",
              name, jar.jar().getFileName(), outcomes.getProperty(name + ".error"))
          .doesNotContainAnyElementsOf(LINKAGE_ERRORS);
    }
    assertCommitted(
        outcomes, "dynamodb", "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog", module);
    assertCommitted(outcomes, "jdbc", "org.apache.iceberg.jdbc.JdbcCatalog", module);
    assertNoSuchTable(outcomes, "glue", "org.apache.iceberg.aws.glue.GlueCatalog");
    assertNoSuchTable(outcomes, "rest", "org.apache.iceberg.rest.RESTCatalog");

    List<NotFoundCatalogServer.Request> requests =
        notFoundServer.requests().subList(requestsBefore, notFoundServer.requests().size());
    assertThat(requests)
        .as("Glue's GetTable and the REST catalog's config and table requests, SigV4-signed")
        .anyMatch(r -> "AWSGlue.GetTable".equals(r.glueOperation()) && r.sigV4Signed())
        .anyMatch(r -> r.path().equals("/v1/config") && r.sigV4Signed())
        .anyMatch(r -> r.path().endsWith("/namespaces/db/tables/orders") && r.sigV4Signed());
  }

  /**
   * The worker never calls a catalog: it reads the pinned metadata and the data with S3FileIO and
   * Parquet.
   */
  @Test
  void workerJarReadsAPinnedTableFromS3() throws Exception {
    DeployedJar jar = DeployedJar.of(root, "worker-fn", List.of());
    long expectedRows = LiveRows.count(LiveRows.multiset(dynamoDbTable));
    Map<String, String> pinned =
        with(
            dynamoDbCatalog(),
            CatalogProbe.PINNED_METADATA,
            TableAccess.metadataLocation(dynamoDbTable),
            CatalogProbe.PINNED_SNAPSHOT,
            Long.toString(dynamoDbTable.currentSnapshot().snapshotId()));

    Properties outcomes =
        jar.probe(
            Map.of("pinned", pinned),
            lambdaEnvironment(),
            Files.createDirectories(dir.resolve("worker-fn")));

    assertThat(outcomes.getProperty("pinned.outcome"))
        .as(outcomes.getProperty("pinned.error"))
        .isEqualTo("ok");
    assertThat(outcomes.getProperty("pinned.rows")).isEqualTo(Long.toString(expectedRows));
  }

  /**
   * CareForTable's delete cleanup decides from the manifests alone (no Parquet reader in its jar:
   * docs/deploy.md, "Artifacts"); run from the care jar on a table whose deletes all apply, it
   * keeps every one and commits nothing.
   */
  @Test
  void careJarRunsDeleteCleanupWithoutParquet() throws Exception {
    DeployedJar jar = DeployedJar.of(root, "care-fn", List.of());
    try (JarFile file = new JarFile(jar.jar().toFile())) {
      assertThat(file.stream().map(JarEntry::getName))
          .as("the care jar carries no Parquet reader")
          .noneMatch(
              name ->
                  name.startsWith("org/apache/parquet/")
                      || name.startsWith("org/apache/iceberg/parquet/"));
    }
    List<DeleteFile> positionDeletes = new ArrayList<>();
    for (ManifestFile manifest :
        dynamoDbTable.currentSnapshot().deleteManifests(dynamoDbTable.io())) {
      try (CloseableIterable<DeleteFile> deletes =
          ManifestFiles.readDeleteManifest(manifest, dynamoDbTable.io(), dynamoDbTable.specs())) {
        deletes.forEach(
            d -> {
              if (d.content() == FileContent.POSITION_DELETES) {
                positionDeletes.add(d.copy());
              }
            });
      }
    }
    long partitionScoped =
        positionDeletes.stream().filter(d -> !ContentFileUtil.isFileScoped(d)).count();
    Map<String, String> pinned =
        with(
            dynamoDbCatalog(),
            CatalogProbe.PINNED_METADATA,
            TableAccess.metadataLocation(dynamoDbTable),
            CatalogProbe.PINNED_SNAPSHOT,
            Long.toString(dynamoDbTable.currentSnapshot().snapshotId()),
            CatalogProbe.DELETE_CLEANUP,
            "true");

    Properties outcomes =
        jar.probe(
            Map.of("cleanup", pinned),
            lambdaEnvironment(),
            Files.createDirectories(dir.resolve("care-fn-cleanup")));

    assertThat(outcomes.getProperty("cleanup.outcome"))
        .as(outcomes.getProperty("cleanup.error"))
        .isEqualTo("ok");
    assertThat(positionDeletes).as("position delete files of the table").isNotEmpty();
    assertThat(outcomes.getProperty("cleanup.position-deletes"))
        .isEqualTo(Integer.toString(positionDeletes.size()));
    assertThat(outcomes.getProperty("cleanup.kept-may-apply"))
        .isEqualTo(Long.toString(partitionScoped));
    assertThat(outcomes.getProperty("cleanup.removed")).isEqualTo("0");
    assertThat(outcomes.getProperty("cleanup.committed")).isEqualTo("false");
    assertThat(outcomes.getProperty("cleanup.problems")).isEmpty();
  }

  private static void assertCommitted(
      Properties outcomes, String name, String catalogClass, String value) {
    assertThat(outcomes.getProperty(name + ".outcome"))
        .as("%s: %s", name, outcomes.getProperty(name + ".error"))
        .isEqualTo("ok");
    assertThat(outcomes.getProperty(name + ".catalog")).isEqualTo(catalogClass);
    assertThat(outcomes.getProperty(name + ".metadata")).startsWith(warehouse);
    assertThat(outcomes.getProperty(name + ".property"))
        .as("the property the probe committed, read back")
        .isEqualTo(value);
  }

  private static void assertNoSuchTable(Properties outcomes, String name, String catalogClass) {
    assertThat(outcomes.getProperty(name + ".catalog"))
        .as("%s: %s", name, outcomes.getProperty(name + ".error"))
        .isEqualTo(catalogClass);
    assertThat(outcomes.getProperty(name + ".error.classes", "").split(","))
        .as("%s: %s", name, outcomes.getProperty(name + ".error"))
        .contains("io.icecompact.core.error.InvalidJobInputException", NO_SUCH_TABLE);
  }

  // ---- the catalog properties of infra/template.yaml's schedules (CatalogPropertiesJson for rest
  // and jdbc:
  // the examples of docs/state-machine.md), each with its endpoints pointed at this machine ----

  private static Map<String, String> glueCatalog() {
    Map<String, String> properties = new TreeMap<>();
    properties.put("type", "glue");
    properties.put("warehouse", warehouse);
    properties.put("glue.endpoint", notFoundServer.endpoint().toString());
    return properties;
  }

  private static Map<String, String> dynamoDbCatalog() {
    Map<String, String> properties = new TreeMap<>(localS3());
    properties.put("catalog-impl", "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog");
    properties.put("dynamodb.table-name", "iceberg");
    properties.put("warehouse", warehouse);
    properties.put("dynamodb.endpoint", dynamo.endpoint().toString());
    return properties;
  }

  /** S3 Tables' form: SigV4-signed requests. */
  private static Map<String, String> restCatalog() {
    Map<String, String> properties = new TreeMap<>();
    properties.put("type", "rest");
    properties.put("uri", notFoundServer.endpoint().toString());
    properties.put("warehouse", "arn:aws:s3tables:us-east-1:123456789012:bucket/warehouse");
    properties.put("rest.sigv4-enabled", "true");
    properties.put("rest.signing-name", "s3tables");
    properties.put("rest.signing-region", LocalS3.REGION);
    return properties;
  }

  private static Map<String, String> jdbcCatalog() {
    Map<String, String> properties = new TreeMap<>(localS3());
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + sqliteCatalog);
    properties.put("jdbc.schema-version", "V1");
    properties.put("warehouse", warehouse);
    return properties;
  }

  /** S3FileIO on local S3; the credentials come from the environment, as a function's role's do. */
  private static Map<String, String> localS3() {
    return Map.of("s3.endpoint", s3.endpoint().toString(), "s3.path-style-access", "true");
  }

  /**
   * This JVM has no AWS environment; the tables are created with the local keys in the properties.
   */
  private static Map<String, String> withTestCredentials(Map<String, String> catalog) {
    Map<String, String> properties = new TreeMap<>(catalog);
    properties.putAll(s3.icebergProperties());
    properties.put("client.credentials-provider", LocalAwsCredentials.class.getName());
    properties.put("client.credentials-provider.access-key-id", LocalS3.ACCESS_KEY_ID);
    properties.put("client.credentials-provider.secret-access-key", LocalS3.SECRET_ACCESS_KEY);
    return properties;
  }

  /**
   * What Lambda puts in a function's environment that the catalogs read: region and the role's
   * keys.
   */
  private static Map<String, String> lambdaEnvironment() {
    return Map.of(
        "AWS_REGION", LocalS3.REGION,
        "AWS_ACCESS_KEY_ID", LocalS3.ACCESS_KEY_ID,
        "AWS_SECRET_ACCESS_KEY", LocalS3.SECRET_ACCESS_KEY,
        "AWS_LAMBDA_LOG_LEVEL", "WARN");
  }

  private static Map<String, String> with(Map<String, String> catalog, String... steps) {
    Map<String, String> properties = new TreeMap<>(catalog);
    for (int i = 0; i < steps.length; i += 2) {
      properties.put(steps[i], steps[i + 1]);
    }
    return properties;
  }
}
