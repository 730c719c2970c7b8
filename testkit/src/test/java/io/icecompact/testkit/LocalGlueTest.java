package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.AccessDeniedException;
import software.amazon.awssdk.services.glue.model.ConcurrentModificationException;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * Iceberg's real GlueCatalog on {@link LocalGlue} and S3FileIO on {@link LocalS3}, and the
 * differences from Glue its class comment names.
 */
class LocalGlueTest {
  static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  private LocalS3 s3;
  private LocalGlue glue;
  private Catalog catalog;

  @BeforeEach
  void start() {
    s3 = new LocalS3().start();
    s3.createBucket("warehouse");
    glue = new LocalGlue().start();
    Map<String, String> properties = new TreeMap<>(glue.icebergProperties("s3://warehouse/wh"));
    properties.putAll(s3.icebergProperties());
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    catalog = CatalogUtil.buildIcebergCatalog("glue", properties, null);
  }

  @AfterEach
  void stop() throws Exception {
    ((AutoCloseable) catalog).close();
    glue.close();
    s3.close();
  }

  @Test
  void icebergCreatesCommitsListsAndLoadsThroughIt() {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    Table table = catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA);
    table.updateProperties().set("k", "v").commit();
    glue.putTable("db", "hive", Map.of(), "s3://warehouse/hive", "EXTERNAL_TABLE");

    assertThat(catalog.loadTable(TableIdentifier.of("db", "t")).properties())
        .containsEntry("k", "v");
    assertThat(catalog.listTables(Namespace.of("db")))
        .as("Iceberg's listing leaves the Hive table out")
        .containsExactly(TableIdentifier.of("db", "t"));
    assertThat(glue.calls("UpdateTable")).isEqualTo(1);
  }

  @Test
  void anUpdateOnAStaleVersionIdFails() {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA);
    try (GlueClient client = glue.newClient()) {
      var created = client.getTable(r -> r.databaseName("db").name("t")).table();
      catalog.loadTable(TableIdentifier.of("db", "t")).updateProperties().set("k", "v").commit();
      var updated = client.getTable(r -> r.databaseName("db").name("t")).table();
      assertThat(updated.versionId()).isEqualTo("2").isNotEqualTo(created.versionId());
      // Glue's optimistic lock, which Iceberg's commit sends: a stale VersionId is refused
      assertThatThrownBy(
              () ->
                  client.updateTable(
                      r ->
                          r.databaseName("db")
                              .versionId(created.versionId())
                              .tableInput(t -> t.name("t").parameters(created.parameters()))))
          .isInstanceOf(ConcurrentModificationException.class);
    }
    assertThat(catalog.loadTable(TableIdentifier.of("db", "t")).properties())
        .containsEntry("k", "v");
  }

  @Test
  void throttlingAndAnotherCatalogAreAnsweredAsGlueDoes() {
    glue.putDatabase("db");
    try (GlueClient client = glue.newClient()) {
      glue.throttleNext(3, "GetDatabases");
      assertThatThrownBy(() -> client.getDatabases(r -> {}))
          .isInstanceOfSatisfying(
              GlueException.class,
              e -> {
                assertThat(e.isThrottlingException()).isTrue();
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
              });
      assertThat(glue.calls("GetDatabases")).as("the SDK's 3 attempts").isEqualTo(3);
      assertThat(client.getDatabases(r -> {}).databaseList()).hasSize(1);

      assertThatThrownBy(
              () -> client.getTable(r -> r.catalogId("999999999999").databaseName("db").name("t")))
          .isInstanceOf(AccessDeniedException.class);

      glue.throttleEvery(2);
      client.getDatabase(r -> r.name("db")); // the 1st call since: answered
      client.getDatabase(r -> r.name("db")); // the 2nd: throttled, the SDK's retry (3rd) answered
      assertThat(glue.calls("GetDatabase")).isEqualTo(3);
    }
  }
}
