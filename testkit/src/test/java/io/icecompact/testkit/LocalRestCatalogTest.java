package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Iceberg's own RESTCatalog client against the server, backed by Iceberg's in-memory catalog. */
class LocalRestCatalogTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TableIdentifier ORDERS = TableIdentifier.of("db", "orders");

  private InMemoryCatalog backing;
  private LocalRestCatalog server;
  private RESTCatalog client;

  @BeforeEach
  void start() {
    backing = new InMemoryCatalog();
    backing.initialize("backing", Map.of());
    server = new LocalRestCatalog(backing);
    client = new RESTCatalog();
    client.initialize(
        "rest",
        Map.of(
            CatalogProperties.URI, server.uri().toString(),
            CatalogProperties.FILE_IO_IMPL, InMemoryFileIO.class.getName()));
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
    backing.close();
  }

  @Test
  void createsCommitsAndListsThroughTheBackingCatalog() {
    client.createNamespace(Namespace.of("db"));
    client.createTable(ORDERS, SCHEMA, PartitionSpec.unpartitioned());

    client.loadTable(ORDERS).newAppend().appendFile(dataFile("a")).commit();

    Table seenByBacking = backing.loadTable(ORDERS);
    assertThat(seenByBacking.currentSnapshot()).isNotNull();
    assertThat(seenByBacking.currentSnapshot().addedDataFiles(seenByBacking.io()))
        .extracting(f -> f.location())
        .containsExactly("memory://data/a.parquet");
    assertThat(client.listTables(Namespace.of("db"))).containsExactly(ORDERS);
    assertThat(client.listNamespaces()).containsExactly(Namespace.of("db"));
    assertThat(client.tableExists(ORDERS)).isTrue();
    assertThat(server.requests()).contains("POST /v1/namespaces/db/tables/orders");
  }

  @Test
  void aCommitOnStaleMetadataFailsAsACommitConflict() {
    client.createNamespace(Namespace.of("db"));
    Table table = client.createTable(ORDERS, SCHEMA);
    // both read the schema before either commits; a schema change is not retried on fresh metadata
    UpdateSchema first = table.updateSchema().addColumn("a", Types.StringType.get());
    UpdateSchema stale = table.updateSchema().addColumn("b", Types.StringType.get());

    first.commit();

    assertThatThrownBy(stale::commit).isInstanceOf(CommitFailedException.class);
    assertThat(backing.loadTable(ORDERS).schema().columns())
        .extracting(Types.NestedField::name)
        .containsExactly("id", "a");
  }

  @Test
  void missingTablesAndNamespacesAreTheClientsNotFoundExceptions() {
    client.createNamespace(Namespace.of("db"));

    assertThatThrownBy(() -> client.loadTable(ORDERS))
        .isInstanceOf(NoSuchTableException.class)
        .hasMessageContaining("db.orders");
    assertThat(client.tableExists(ORDERS)).isFalse();
    assertThatThrownBy(() -> client.listTables(Namespace.of("nope")))
        .isInstanceOf(NoSuchNamespaceException.class);
  }

  @Test
  void operationsItDoesNotServeAreRefusedByTheClientOrAnsweredWithABadRequest() throws Exception {
    client.createNamespace(Namespace.of("db"));
    client.createTable(ORDERS, SCHEMA);

    // /v1/config lists only the endpoints served, so the client itself refuses a drop
    assertThatThrownBy(() -> client.dropTable(ORDERS))
        .isInstanceOf(UnsupportedOperationException.class);

    HttpResponse<String> unknown =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(server.uri().resolve("v1/namespaces/db/tables/orders/plan"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(unknown.body())
        .contains("\"type\":\"BadRequestException\"")
        .contains("No route for request: POST /v1/namespaces/db/tables/orders/plan");
  }

  private static DataFile dataFile(String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("memory://data/" + name + ".parquet")
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .withFormat("parquet")
        .build();
  }
}
