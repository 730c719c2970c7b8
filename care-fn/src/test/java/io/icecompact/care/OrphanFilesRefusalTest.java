package io.icecompact.care;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** What {@link OrphanFilesStep} refuses before listing or deleting anything. */
class OrphanFilesRefusalTest {
  @Test
  void aFileIoThatCannotListIsRefused() throws Exception {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("memory", Map.of());
      catalog.createNamespace(Namespace.of("db"));
      Table table =
          catalog.createTable(
              TableIdentifier.of("db", "t"),
              new Schema(Types.NestedField.optional(1, "id", Types.LongType.get())),
              PartitionSpec.unpartitioned());
      assertThatThrownBy(() -> new OrphanFilesStep(catalog, "db.t").run(table))
          .isInstanceOf(CareRefusedException.class)
          .hasMessageContaining("cannot list files");
    }
  }

  @Test
  void minimumAgesFromOneDayAreAccepted() throws Exception {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("memory", Map.of());
      assertThat(
              new OrphanFilesStep(
                  catalog, "db.t", Duration.ofDays(1), null, Clock.systemUTC(), t -> {}))
          .isNotNull();
      assertThatThrownBy(
              () ->
                  new OrphanFilesStep(
                      catalog,
                      "db.t",
                      Duration.ofDays(1).minusMillis(1),
                      null,
                      Clock.systemUTC(),
                      t -> {}))
          .isInstanceOf(CareRefusedException.class);
      assertThatThrownBy(
              () ->
                  new OrphanFilesStep(
                      (org.apache.iceberg.catalog.Catalog) null,
                      "db.t",
                      Duration.ofDays(3),
                      "s3://b/work",
                      Clock.systemUTC(),
                      t -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the catalog and the table's name are required");
    }
  }
}
