package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.io.LocalFileIO;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.fixtures.TestTables;
import io.icecompact.testkit.LocalAwsCredentials;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.LocalRestCatalog;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.NotFoundCatalogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each catalog type the docs list, through {@code icecompact compact}: those that run on this
 * machine (JDBC on SQLite, Hadoop on a local warehouse, DynamoDB on local DynamoDB and S3, REST on
 * the testkit's {@link LocalRestCatalog} serving a JDBC catalog) compact a real fragmented table;
 * Glue's client makes a real request to a local endpoint that knows no table; Hive and Nessie,
 * whose clients icecompact does not ship, are refused up front naming what is missing.
 */
class CatalogTypesTest {
  static final String TABLE = "db.orders";
  static final String NL = System.lineSeparator();

  static LocalS3 s3;
  static LocalDynamoDb dynamo;
  static String bucket;

  @TempDir Path warehouse;

  @BeforeAll
  static void startLocalAws() {
    s3 = new LocalS3().start();
    bucket = s3.createBucket("catalog-types");
    dynamo = new LocalDynamoDb().start();
  }

  @AfterAll
  static void stopLocalAws() {
    dynamo.close();
    s3.close();
  }

  @Test
  void jdbcOnSqlite() {
    compactsThrough(LocalWarehouse.catalogProperties(warehouse));
  }

  @Test
  void hadoopOnALocalWarehouse() {
    compactsThrough(Map.of("type", "hadoop", "warehouse", warehouse.toString()));
  }

  @Test
  void hadoopPropertiesReachTheHadoopConfiguration() {
    // a key of the Configuration, set through the catalog properties, that breaks local files if it
    // is read
    // (and past Hadoop's FileSystem cache, which another test of this JVM may have filled with
    // file:'s)
    Map<String, String> catalog =
        Map.of(
            "type",
            "hadoop",
            "warehouse",
            warehouse.toString(),
            "hadoop.fs.file.impl",
            "com.example.NoSuchFs",
            "hadoop.fs.file.impl.disable.cache",
            "true");
    CliRun run = CliRun.of(compact(catalog));

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("error: Cannot create the catalog: ")
        .contains("com.example.NoSuchFs");
  }

  @Test
  void dynamoDbOnLocalDynamoDbAndS3() {
    Map<String, String> catalog = new TreeMap<>(awsClients());
    catalog.put("catalog-impl", "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog");
    catalog.put("dynamodb.table-name", "iceberg");
    catalog.put("dynamodb.endpoint", dynamo.endpoint().toString());
    catalog.put("warehouse", "s3://" + bucket + "/dynamodb");
    compactsThrough(catalog);
  }

  @Test
  void restServedFromAJdbcCatalog() {
    Map<String, String> backing = LocalWarehouse.catalogProperties(warehouse);
    try (TableAccess server = new TableAccess(backing);
        LocalRestCatalog rest = new LocalRestCatalog(server.catalog())) {
      // the table is made and checked through the JDBC catalog; the CLI knows only the REST server
      compactsThrough(backing, restClient(rest));

      assertThat(rest.requests()).as("the commit").contains("POST /v1/namespaces/db/tables/orders");
    }
  }

  @Test
  void restReportsTheMissingTable() {
    try (TableAccess server = new TableAccess(LocalWarehouse.catalogProperties(warehouse));
        LocalRestCatalog rest = new LocalRestCatalog(server.catalog())) {
      CliRun run = CliRun.of(compact(restClient(rest)));

      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.err()).isEqualTo("error: Table not found: " + TABLE + NL);
      assertThat(rest.requests()).contains("GET /v1/namespaces/db/tables/orders");
    }
  }

  @Test
  void glueAsksItsEndpointAndReportsTheMissingTable() {
    try (NotFoundCatalogServer glue = new NotFoundCatalogServer()) {
      Map<String, String> catalog = new TreeMap<>(awsClients());
      catalog.put("type", "glue");
      catalog.put("glue.endpoint", glue.endpoint().toString());
      catalog.put("warehouse", "s3://" + bucket + "/glue");

      long start = System.nanoTime();
      CliRun run = CliRun.of(compact(catalog));

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.err()).isEqualTo("error: Table not found: " + TABLE + NL);
      assertThat(glue.requests())
          .as("a signed GetTable request")
          .anyMatch(r -> "AWSGlue.GetTable".equals(r.glueOperation()) && r.sigV4Signed());
    }
  }

  /**
   * An endpoint that accepts connections and never answers held the CLI for 90 s (three attempts of
   * the SDK's 30 s read timeout); the Glue client's calls are now bounded, and the failure is
   * transient (exit 1) and names the endpoint.
   */
  @Test
  void glueEndpointThatNeverAnswersFailsFastNamingIt() throws Exception {
    try (SilentEndpoint glue = new SilentEndpoint()) {
      Map<String, String> catalog = new TreeMap<>(awsClients());
      catalog.put("type", "glue");
      catalog.put("glue.endpoint", "http://127.0.0.1:" + glue.port());
      catalog.put("warehouse", "s3://" + bucket + "/glue");

      long start = System.nanoTime();
      CliRun run = CliRun.of(compact(catalog));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(took).isLessThan(Duration.ofSeconds(25));
      assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
      assertThat(run.err())
          .startsWith(
              "error: Cannot load table "
                  + TABLE
                  + ": ApiCallTimeoutException: Glue endpoint http://127.0.0.1:"
                  + glue.port()
                  + " did not answer within 15 s (5 s per attempt)");
      assertThat(glue.connections()).as("the SDK retried before giving up").isGreaterThan(1);
    }
  }

  @Test
  void aClientFactoryOfTheUsersOwnIsKept() {
    Map<String, String> assumeRole =
        Map.of(
            "type", "glue", "client.factory", "org.apache.iceberg.aws.AssumeRoleAwsClientFactory");
    assertThat(io.icecompact.cli.catalog.BoundedGlueClientFactory.withBoundedGlue(assumeRole))
        .isEqualTo(assumeRole);
    assertThat(
            io.icecompact.cli.catalog.BoundedGlueClientFactory.withBoundedGlue(
                Map.of("type", "GLUE")))
        .containsEntry(
            "client.factory", io.icecompact.cli.catalog.BoundedGlueClientFactory.class.getName());
    assertThat(
            io.icecompact.cli.catalog.BoundedGlueClientFactory.withBoundedGlue(
                Map.of("type", "jdbc")))
        .doesNotContainKey("client.factory");
  }

  /** Accepts TCP connections on 127.0.0.1 and never sends a byte, as a stalled proxy does. */
  private static final class SilentEndpoint implements AutoCloseable {
    private final java.net.ServerSocket server;
    private final List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();

    SilentEndpoint() throws java.io.IOException {
      server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (!server.isClosed()) {
                    held.add(server.accept());
                  }
                } catch (java.io.IOException closed) {
                  // close() ends the loop
                }
              },
              "silent-endpoint");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    int connections() {
      return held.size();
    }

    @Override
    public void close() throws java.io.IOException {
      server.close();
      for (java.net.Socket socket : held) {
        socket.close();
      }
    }
  }

  @Test
  void hiveAndNessieNameWhatIsMissing() {
    CliRun hive = CliRun.of(compact(Map.of("type", "hive", "uri", "thrift://127.0.0.1:9083")));
    assertThat(hive.exitCode()).isEqualTo(2);
    assertThat(hive.err())
        .isEqualTo(
            "error: Catalog type 'hive' needs Iceberg's HiveCatalog (org.apache.iceberg:iceberg-hive-metastore)"
                + " and the Hive metastore client (org.apache.hive:hive-metastore) on the class path; icecompact"
                + " does not include them. Use type glue, rest, jdbc or hadoop, or add them to the class path"
                + NL);

    CliRun nessie =
        CliRun.of(compact(Map.of("type", "nessie", "uri", "http://127.0.0.1:19120/api/v2")));
    assertThat(nessie.exitCode()).isEqualTo(2);
    assertThat(nessie.err())
        .startsWith("error: Catalog type 'nessie' needs Iceberg's NessieCatalog");
  }

  private void compactsThrough(Map<String, String> catalog) {
    compactsThrough(catalog, catalog);
  }

  /**
   * Creates the fragmented table through {@code tableCatalog}, compacts it with the CLI through
   * {@code cliCatalog}, and checks the table through {@code tableCatalog}: same live rows, each
   * partition's files rewritten into one.
   */
  private void compactsThrough(Map<String, String> tableCatalog, Map<String, String> cliCatalog) {
    Map<String, Long> rowsBefore;
    int filesBefore;
    try (TableAccess access = new TableAccess(tableCatalog)) {
      Table table =
          FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), TestTables.SMALL);
      rowsBefore = LiveRows.multiset(table);
      filesBefore = TestTables.liveDataFiles(table).size();
    }
    assertThat(filesBefore).isEqualTo(15);
    assertThat(LiveRows.count(rowsBefore)).isPositive();

    CliRun run = CliRun.of(compact(cliCatalog));

    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    assertThat(run.out()).contains("\"status\" : \"COMMITTED\"");
    try (TableAccess access = new TableAccess(tableCatalog)) {
      Table table = access.loadTable(TABLE);
      assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
      assertThat(TestTables.liveDataFiles(table)).hasSize(3);
      assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    }
  }

  private static List<String> compact(Map<String, String> catalog) {
    List<String> args = new ArrayList<>(List.of("compact", "--table", TABLE, "--json"));
    catalog.forEach(
        (key, value) -> {
          args.add("-c");
          args.add(key + "=" + value);
        });
    return args;
  }

  /**
   * A RESTCatalog client of {@code rest}, with the FileIO for the local table files it points to.
   */
  private static Map<String, String> restClient(LocalRestCatalog rest) {
    return Map.of(
        "type", "rest", "uri", rest.uri().toString(), "io-impl", LocalFileIO.class.getName());
  }

  /** S3FileIO on local S3, and the keys every AWS client Iceberg builds signs with. */
  private static Map<String, String> awsClients() {
    Map<String, String> properties = new TreeMap<>(s3.icebergProperties());
    properties.put("client.credentials-provider", LocalAwsCredentials.class.getName());
    properties.put(LocalAwsCredentials.PREFIX + "access-key-id", LocalS3.ACCESS_KEY_ID);
    properties.put(LocalAwsCredentials.PREFIX + "secret-access-key", LocalS3.SECRET_ACCESS_KEY);
    return properties;
  }
}
