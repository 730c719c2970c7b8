package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Integer keys read as primitive longs give what Iceberg's reader gives, nulls included, across row
 * groups; a column stored otherwise than the key's type is left to the generic reader.
 */
class LongKeyColumnTest {
  @TempDir Path dir;

  @Test
  void longKeysAndNullsInFileOrderAcrossRowGroups() throws IOException {
    List<Long> keys = new ArrayList<>();
    for (long i = 0; i < 50_000; i++) {
      keys.add(i % 7 == 0 ? null : i * 1_000_003L - 5);
    }
    Schema schema = new Schema(Types.NestedField.optional(3, "id", Types.LongType.get()));
    File file = write(schema, keys, "write.parquet.row-group-size-bytes", "65536");

    try (var reader =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            new ParquetInputOf(Files.localInput(file)), ReadOptions.builder().build())) {
      assertThat(reader.getRowGroups()).hasSizeGreaterThan(1);
    }
    assertThat(read(file, schema)).isEqualTo(keys);
  }

  @Test
  void intAndDateKeysWidenToLongs() throws IOException {
    for (Type type : List.of(Types.IntegerType.get(), Types.DateType.get())) {
      Schema schema = new Schema(Types.NestedField.required(1, "k", type));
      List<Integer> keys = List.of(-3, 0, 19_000, Integer.MAX_VALUE);
      File file = write(schema, keys, "write.parquet.row-group-size-bytes", "134217728");

      assertThat(read(file, schema)).containsExactly(-3L, 0L, 19_000L, (long) Integer.MAX_VALUE);
    }
  }

  /** An int column under a key that is now a long (a promoted type): not read here. */
  @Test
  void aPromotedColumnIsLeftToTheGenericReader() throws IOException {
    Schema written = new Schema(Types.NestedField.required(1, "k", Types.IntegerType.get()));
    File file = write(written, List.of(1, 2), "write.parquet.row-group-size-bytes", "134217728");
    Schema now = new Schema(Types.NestedField.required(1, "k", Types.LongType.get()));

    List<Long> seen = new ArrayList<>();
    boolean read = LongKeyColumn.forEach(Files.localInput(file), now, values(seen));

    assertThat(read).isFalse();
    assertThat(seen).isEmpty();
  }

  private File write(Schema schema, List<?> keys, String property, String value)
      throws IOException {
    File file = dir.resolve("keys-" + System.nanoTime() + ".parquet").toFile();
    try (FileAppender<Record> appender =
        Parquet.write(Files.localOutput(file))
            .schema(schema)
            .set(property, value)
            .set("write.parquet.page-row-limit", "1000")
            .createWriterFunc(GenericParquetWriter::create)
            .build()) {
      for (Object key : keys) {
        GenericRecord record = GenericRecord.create(schema);
        record.set(
            0,
            key instanceof Integer days
                    && schema.columns().get(0).type().typeId() == Type.TypeID.DATE
                ? java.time.LocalDate.ofEpochDay(days)
                : key);
        appender.add(record);
      }
    }
    return file;
  }

  private static List<Long> read(File file, Schema schema) throws IOException {
    List<Long> seen = new ArrayList<>();
    assertThat(LongKeyColumn.forEach(Files.localInput(file), schema, values(seen))).isTrue();
    return seen;
  }

  private static LongKeyColumn.Values values(List<Long> seen) {
    return new LongKeyColumn.Values() {
      @Override
      public void value(long value) {
        seen.add(value);
      }

      @Override
      public void nullValue() {
        seen.add(null);
      }
    };
  }
}
