package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

class WriteSettingsTest {
  private static final MessageType TYPE =
      Types.buildMessage().optional(PrimitiveTypeName.BINARY).id(1).named("s").named("table");
  private static final ColumnDescriptor COLUMN = TYPE.getColumns().get(0);

  /** Pitfall: a shared values-writer factory is re-initialized by every build(). */
  @Test
  void aSecondConfigurationDoesNotTakeTheFirstOnesDictionary() {
    WriteSettings settings = new WriteSettings(Map.of());
    ParquetProperties withDictionary = settings.properties(true);
    ParquetProperties withoutDictionary = settings.properties(false);

    assertThat(withDictionary.newValuesWriter(COLUMN)).isInstanceOf(FallbackValuesWriter.class);
    assertThat(withoutDictionary.newValuesWriter(COLUMN)).isInstanceOf(PlainValuesWriter.class);
  }

  @Test
  void tableSettingsAreRead() {
    WriteSettings settings =
        new WriteSettings(
            Map.of(
                "write.parquet.row-group-size-bytes", "1048576",
                "write.parquet.page-size-bytes", "65536",
                "write.parquet.compression-codec", "snappy"));

    assertThat(settings.rowGroupSize).isEqualTo(1048576);
    assertThat(settings.pageSize).isEqualTo(65536);
    assertThat(settings.codec.name()).isEqualTo("SNAPPY");
  }
}
