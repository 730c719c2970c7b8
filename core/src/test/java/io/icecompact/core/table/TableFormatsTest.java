package io.icecompact.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Which format a group's output takes, from the table's properties as Iceberg's writers read them.
 */
class TableFormatsTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  private static Table table(Map<String, String> properties) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("db"));
    return catalog.createTable(
        TableIdentifier.parse("db.t"), SCHEMA, PartitionSpec.unpartitioned(), properties);
  }

  @Test
  void parquetUnlessTheTableSaysOtherwiseAndDeletesFollowTheDataFormat() {
    Table parquet = table(Map.of());
    assertThat(TableFormats.dataFormat(parquet)).isEqualTo(FileFormat.PARQUET);
    assertThat(TableFormats.deleteFormat(parquet)).isEqualTo(FileFormat.PARQUET);

    Table orc = table(Map.of(TableProperties.DEFAULT_FILE_FORMAT, "ORC"));
    assertThat(TableFormats.dataFormat(orc)).isEqualTo(FileFormat.ORC);
    assertThat(TableFormats.deleteFormat(orc)).isEqualTo(FileFormat.ORC);

    Table mixed =
        table(
            Map.of(
                TableProperties.DEFAULT_FILE_FORMAT,
                "avro",
                TableProperties.DELETE_DEFAULT_FILE_FORMAT,
                "parquet"));
    assertThat(TableFormats.dataFormat(mixed)).isEqualTo(FileFormat.AVRO);
    assertThat(TableFormats.deleteFormat(mixed)).isEqualTo(FileFormat.PARQUET);
  }
}
