package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ColumnCopierTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));

  @TempDir Path dir;

  /**
   * Pitfall: a binary value from the column reader is a view into the decompressed input page. The
   * fake reader here hands out views of one buffer it overwrites for every value, then garbles it
   * for good; statistics, dictionary and values must still be the values read.
   */
  @Test
  void binaryValuesSurviveTheInputBufferBeingReused() throws IOException {
    List<String> values = Arrays.asList("pear", "apple", null, "kiwi", "pear", "fig");
    BitSet deleted = new BitSet();
    deleted.set(5); // "fig" would be the minimum if it were kept
    ViewReader reader = new ViewReader(values);
    WriteSettings settings = new WriteSettings(Map.of());
    OutputColumns columns = new OutputColumns(SCHEMA, 2);
    File file = dir.resolve("out.parquet").toFile();
    ColumnarFileWriter writer = LocalColumnarFiles.writer(file, columns, settings);
    reader.descriptor = columns.columns.get(0);

    int kept = ColumnCopier.copy(reader, writer.sink(0, false), null, 0, values.size(), 0, deleted);
    writer.rowsAdded(kept);
    reader.garble();
    DataFile data = writer.close(PartitionSpec.unpartitioned(), null, MetricsConfig.getDefault());

    assertThat(kept).isEqualTo(5);
    assertThat(read(file)).containsExactly("pear", "apple", null, "kiwi", "pear");
    assertThat(
            Conversions.<CharSequence>fromByteBuffer(
                    Types.StringType.get(), data.lowerBounds().get(1))
                .toString())
        .isEqualTo("apple");
    assertThat(
            Conversions.<CharSequence>fromByteBuffer(
                    Types.StringType.get(), data.upperBounds().get(1))
                .toString())
        .isEqualTo("pear");
    assertThat(data.nullValueCounts()).containsEntry(1, 1L);
  }

  private static List<String> read(File file) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(Files.localInput(file))
            .project(SCHEMA)
            .createReaderFunc(type -> GenericParquetReaders.buildReader(SCHEMA, type))
            .build()) {
      records.forEach(r -> rows.add(r.get(0) == null ? null : r.get(0).toString()));
    }
    return rows;
  }

  /** Hands out every value as a view of one shared buffer, as parquet-java's plain decoder does. */
  private static final class ViewReader implements ColumnReader {
    private final List<String> values;
    private final byte[] buffer = new byte[32];
    private int row;
    ColumnDescriptor descriptor;

    ViewReader(List<String> values) {
      this.values = values;
    }

    void garble() {
      Arrays.fill(buffer, (byte) 'z');
    }

    @Override
    public Binary getBinary() {
      byte[] bytes = values.get(row).getBytes(StandardCharsets.UTF_8);
      Arrays.fill(buffer, (byte) 0);
      System.arraycopy(bytes, 0, buffer, 0, bytes.length);
      return Binary.fromConstantByteBuffer(ByteBuffer.wrap(buffer, 0, bytes.length));
    }

    @Override
    public int getCurrentDefinitionLevel() {
      return values.get(row) == null ? 0 : 1;
    }

    @Override
    public void consume() {
      row++;
    }

    @Override
    public void skip() {}

    @Override
    public long getTotalValueCount() {
      return values.size();
    }

    @Override
    public int getCurrentRepetitionLevel() {
      return 0;
    }

    @Override
    public ColumnDescriptor getDescriptor() {
      return descriptor;
    }

    @Override
    public void writeCurrentValueToConverter() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int getCurrentValueDictionaryID() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int getInteger() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean getBoolean() {
      throw new UnsupportedOperationException();
    }

    @Override
    public long getLong() {
      throw new UnsupportedOperationException();
    }

    @Override
    public float getFloat() {
      throw new UnsupportedOperationException();
    }

    @Override
    public double getDouble() {
      throw new UnsupportedOperationException();
    }
  }
}
