package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dictionary column writer's output read back by Iceberg's reader and checked in the footer:
 * values given by id and by value, nulls, statistics, and both of parquet-java's fallbacks.
 */
class DictionaryColumnWriterTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "n", Types.LongType.get()),
          Types.NestedField.optional(2, "d", Types.IntegerType.get()),
          Types.NestedField.optional(3, "s", Types.StringType.get()));

  @TempDir Path dir;

  @Test
  void valuesWrittenByIdOrByValueReadBackWithTheirStatistics() throws IOException {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      rows.add(
          i % 7 == 3
              ? new Object[] {null, null, null}
              : new Object[] {(long) (i % 50) - 20, i % 9, "v" + (i % 30)});
    }
    Written written = write(Map.of(), rows, true);

    assertThat(read(written.file)).isEqualTo(rows.stream().map(Arrays::asList).toList());
    assertThat(written.data.nullValueCounts())
        .containsEntry(1, 714L)
        .containsEntry(2, 714L)
        .containsEntry(3, 714L);
    assertThat(
            (Long)
                Conversions.fromByteBuffer(Types.LongType.get(), written.data.lowerBounds().get(1)))
        .isEqualTo(-20L);
    assertThat(
            (Long)
                Conversions.fromByteBuffer(Types.LongType.get(), written.data.upperBounds().get(1)))
        .isEqualTo(29L);
    assertThat(
            (Integer)
                Conversions.fromByteBuffer(
                    Types.IntegerType.get(), written.data.upperBounds().get(2)))
        .isEqualTo(8);
    assertThat(
            Conversions.<CharSequence>fromByteBuffer(
                    Types.StringType.get(), written.data.upperBounds().get(3))
                .toString())
        .isEqualTo("v9");
    for (ColumnChunkMetaData chunk : chunks(written.file)) {
      EncodingStats encodings = chunk.getEncodingStats();
      assertThat(chunk.hasDictionaryPage()).as(chunk.getPath().toDotString()).isTrue();
      assertThat(encodings.hasNonDictionaryEncodedPages())
          .as(chunk.getPath().toDotString())
          .isFalse();
    }
  }

  /**
   * A dictionary that outgrows the table's dictionary page size: later values are written plainly.
   */
  @Test
  void dictionaryOutgrowingItsPageSizeFallsBackForTheRestOfTheChunk() throws IOException {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      // repeats first (the dictionary pays), then ever new values
      long n = i < 1_000 ? i % 10 : i;
      rows.add(new Object[] {n, (int) n, "s" + n});
    }
    Written written =
        write(
            Map.of(
                TableProperties.PARQUET_DICT_SIZE_BYTES,
                "4000",
                TableProperties.PARQUET_PAGE_ROW_LIMIT,
                "500"),
            rows,
            true);

    assertThat(read(written.file)).isEqualTo(rows.stream().map(Arrays::asList).toList());
    for (ColumnChunkMetaData chunk : chunks(written.file)) {
      EncodingStats encodings = chunk.getEncodingStats();
      assertThat(chunk.hasDictionaryPage()).as(chunk.getPath().toDotString()).isTrue();
      assertThat(encodings.hasDictionaryEncodedPages()).isTrue();
      assertThat(encodings.hasNonDictionaryEncodedPages())
          .as(chunk.getPath().toDotString())
          .isTrue();
    }
    assertThat(
            (Long)
                Conversions.fromByteBuffer(Types.LongType.get(), written.data.upperBounds().get(1)))
        .isEqualTo(2_999L);
  }

  /** parquet-java's check after the first page: unique values gain nothing from a dictionary. */
  @Test
  void dictionaryNotPayingOnTheFirstPageIsDropped() throws IOException {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      rows.add(new Object[] {i * 1_000_003L, i, "unique-" + i});
    }
    Written written = write(Map.of(TableProperties.PARQUET_PAGE_ROW_LIMIT, "300"), rows, false);

    assertThat(read(written.file)).isEqualTo(rows.stream().map(Arrays::asList).toList());
    for (ColumnChunkMetaData chunk : chunks(written.file)) {
      assertThat(chunk.hasDictionaryPage()).as(chunk.getPath().toDotString()).isFalse();
      assertThat(chunk.getEncodingStats().hasDictionaryEncodedPages()).isFalse();
    }
  }

  @Test
  void onlyNullsWriteNoDictionary() throws IOException {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(new Object[] {null, null, null});
    }
    Written written = write(Map.of(), rows, true);

    assertThat(read(written.file)).isEqualTo(rows.stream().map(Arrays::asList).toList());
    assertThat(written.data.nullValueCounts()).containsEntry(1, 100L).containsEntry(3, 100L);
    for (ColumnChunkMetaData chunk : chunks(written.file)) {
      assertThat(chunk.hasDictionaryPage()).isFalse();
    }
  }

  /**
   * Input dictionaries learnt at once: one outside the range of the dictionary so far is appended
   * without lookups, one overlapping it is looked up (after indexing what was appended), and no
   * value gets two ids.
   */
  @Test
  void inputDictionariesLearntAtOnceGiveEachValueOneId() throws IOException {
    long[][] inputs = {range(1, 100), range(101, 200), range(50, 150), range(-10, 0)};
    WriteSettings settings = new WriteSettings(Map.of());
    OutputColumns columns = new OutputColumns(SCHEMA, 2);
    File file = dir.resolve("learnt.parquet").toFile();
    ColumnarFileWriter writer = LocalColumnarFiles.writer(file, columns, settings);
    List<List<Object>> expected = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      ColumnSink sink = writer.sink(c, false);
      DictionaryColumnWriter dictionary = sink.dictionary();
      for (long[] input : inputs) {
        int[] ids = c == 0 ? dictionary.idsOf(input, input.length) : null;
        for (int i = 0; i < input.length; i++) {
          switch (c) {
            case 0 -> dictionary.writeId(ids[i], 1);
            case 1 -> dictionary.write((int) input[i], 0, 1);
            default -> dictionary.write(Binary.fromString("s" + input[i]), 0, 1);
          }
          sink.endRecord();
          if (c == 0) {
            expected.add(Arrays.asList(input[i], (int) input[i], "s" + input[i]));
          }
        }
      }
      assertThat(dictionary.dictionarySize()).as("column %d", c).isEqualTo(211);
    }
    writer.rowsAdded(expected.size());
    writer.close(PartitionSpec.unpartitioned(), null, MetricsConfig.getDefault());

    assertThat(read(file)).isEqualTo(expected);
  }

  private static long[] range(long from, long to) {
    return java.util.stream.LongStream.rangeClosed(from, to).toArray();
  }

  private record Written(File file, DataFile data) {}

  /**
   * Writes the rows through each column's dictionary writer: every value by value the first time,
   * then (with {@code byId}) by the id it got, as the copy of a dictionary-encoded chunk does.
   */
  private Written write(Map<String, String> properties, List<Object[]> rows, boolean byId)
      throws IOException {
    WriteSettings settings = new WriteSettings(properties);
    OutputColumns columns = new OutputColumns(SCHEMA, 2);
    File file = dir.resolve("out-" + System.nanoTime() + ".parquet").toFile();
    ColumnarFileWriter writer = LocalColumnarFiles.writer(file, columns, settings);
    for (int c = 0; c < 3; c++) {
      ColumnSink sink = writer.sink(c, false);
      DictionaryColumnWriter dictionary = sink.dictionary();
      assertThat(dictionary).isNotNull();
      Map<Object, Integer> ids = new HashMap<>();
      for (Object[] row : rows) {
        Object value = row[c];
        if (value == null) {
          dictionary.writeNull(0, 0);
        } else if (byId && ids.containsKey(value) && ids.get(value) >= 0) {
          dictionary.writeId(ids.get(value), 1);
        } else {
          int id =
              switch (c) {
                case 0 -> dictionary.idOf((Long) value);
                case 1 -> dictionary.idOf((Integer) value);
                default -> dictionary.idOf(Binary.fromString((String) value));
              };
          ids.put(value, id);
          if (id >= 0) {
            dictionary.writeId(id, 1);
          } else {
            switch (c) {
              case 0 -> dictionary.write((long) (Long) value, 0, 1);
              case 1 -> dictionary.write((int) (Integer) value, 0, 1);
              default ->
                  dictionary.write(
                      Binary.fromConstantByteArray(
                          ((String) value).getBytes(StandardCharsets.UTF_8)),
                      0,
                      1);
            }
          }
        }
        sink.endRecord();
      }
    }
    writer.rowsAdded(rows.size());
    DataFile data = writer.close(PartitionSpec.unpartitioned(), null, MetricsConfig.getDefault());
    return new Written(file, data);
  }

  private static List<ColumnChunkMetaData> chunks(File file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file.toPath()))) {
      assertThat(reader.getFooter().getBlocks()).hasSize(1);
      return reader.getFooter().getBlocks().get(0).getColumns();
    }
  }

  private static List<List<Object>> read(File file) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(Files.localInput(file))
            .project(SCHEMA)
            .createReaderFunc(type -> GenericParquetReaders.buildReader(SCHEMA, type))
            .build()) {
      for (Record r : records) {
        rows.add(Arrays.asList(r.get(0), r.get(1), r.get(2) == null ? null : r.get(2).toString()));
      }
    }
    return rows;
  }
}
