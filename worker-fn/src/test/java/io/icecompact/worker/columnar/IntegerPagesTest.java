package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Integer pages decoded from their bytes give the values and nulls parquet-java wrote, in order,
 * across pages and row groups, for PLAIN pages, dictionary pages, chunks whose dictionary
 * overflowed into PLAIN pages, v1 and v2 pages; a chunk with another encoding (v2's
 * DELTA_BINARY_PACKED) is refused by {@link IntegerPages#supports} and left to the column reader.
 */
class IntegerPagesTest {
  @TempDir Path dir;

  enum Values {
    /** Few distinct values: every page dictionary-encoded (one row group). */
    REPEATED,
    /**
     * Few distinct values, then unique ones past the dictionary's size: the first row group's pages
     * dictionary-encoded, then plain (v1) or delta (v2); the other row groups' all plain or delta.
     */
    MIXED,
    /** Unique values: a dictionary does not pay from the first page, so none. */
    UNIQUE,
  }

  static Stream<Arguments> layouts() {
    List<Arguments> layouts = new ArrayList<>();
    for (WriterVersion version : WriterVersion.values()) {
      for (PrimitiveTypeName type : List.of(PrimitiveTypeName.INT32, PrimitiveTypeName.INT64)) {
        for (Repetition repetition : List.of(Repetition.REQUIRED, Repetition.OPTIONAL)) {
          for (Values values : Values.values()) {
            for (boolean dictionary : List.of(true, false)) {
              layouts.add(Arguments.of(version, type, repetition, values, dictionary));
            }
          }
        }
      }
    }
    return layouts.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2} {3} dictionary={4}")
  @MethodSource("layouts")
  void decodesWhatWasWritten(
      WriterVersion version,
      PrimitiveTypeName type,
      Repetition repetition,
      Values shape,
      boolean dictionary)
      throws IOException {
    MessageType schema =
        Types.buildMessage().primitive(type, repetition).id(1).named("k").named("table");
    List<Long> written = new ArrayList<>();
    for (long i = 0; i < 40_000; i++) {
      boolean isNull = repetition == Repetition.OPTIONAL && i % 11 == 3;
      boolean repeated = shape == Values.REPEATED || (shape == Values.MIXED && i < 2_000);
      // distinct values scattered (murmur's finalizer): no encoding packs them small
      long value = repeated ? i % 37 - 18 : scatter(i);
      written.add(isNull ? null : type == PrimitiveTypeName.INT32 ? (int) value : value);
    }
    Path file = dir.resolve(version + "-" + type + "-" + repetition + shape + dictionary);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(schema)
            .withWriterVersion(version)
            .withDictionaryEncoding(dictionary)
            .withDictionaryPageSize(4 * 1024)
            .withPageRowCountLimit(1_000)
            .withRowGroupSize(16 * 1024L)
            .build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      for (Long value : written) {
        Group group = groups.newGroup();
        if (value != null) {
          if (type == PrimitiveTypeName.INT32) {
            group.add(0, value.intValue());
          } else {
            group.add(0, value);
          }
        }
        writer.write(group);
      }
    }

    List<Long> read = new ArrayList<>();
    Set<Encoding> encodings = EnumSet.noneOf(Encoding.class);
    boolean allSupported = true;
    try (ParquetFileReader reader =
        ParquetFileReader.open(new LocalInputFile(file), ReadOptions.builder().build())) {
      if (shape != Values.REPEATED) {
        assertThat(reader.getRowGroups()).hasSizeGreaterThan(1);
      }
      ColumnDescriptor column =
          reader.getFooter().getFileMetaData().getSchema().getColumns().get(0);
      for (int index = 0; index < reader.getRowGroups().size(); index++) {
        BlockMetaData block = reader.getRowGroups().get(index);
        ColumnChunkMetaData chunk = EqualityDeletedRows.chunk(block, column);
        encodings.addAll(chunk.getEncodings());
        PageReadStore pages = reader.readRowGroup(index);
        if (!IntegerPages.supports(column, chunk)) {
          allSupported = false;
          continue;
        }
        IntegerPages decoded = new IntegerPages(pages.getPageReader(column), column);
        int rows = 0;
        for (int count = decoded.next(); count > 0; count = decoded.next()) {
          for (int i = 0; i < count; i++) {
            read.add(decoded.isNull(i) ? null : decoded.values()[i]);
          }
          rows += count;
        }
        assertThat(rows).isEqualTo(block.getRowCount());
      }
    }

    // the writers' layouts are what the cases mean to cover
    boolean delta = encodings.contains(Encoding.DELTA_BINARY_PACKED);
    assertThat(delta)
        .isEqualTo(
            version == WriterVersion.PARQUET_2_0 && !(dictionary && shape == Values.REPEATED));
    if (dictionary && version == WriterVersion.PARQUET_1_0 && shape != Values.UNIQUE) {
      assertThat(encodings).contains(Encoding.PLAIN_DICTIONARY);
      assertThat(encodings.contains(Encoding.PLAIN)).isEqualTo(shape == Values.MIXED);
    }
    assertThat(allSupported).isEqualTo(!delta);
    if (allSupported) {
      assertThat(read)
          .containsExactlyElementsOf(written.stream().map(IntegerPagesTest::asLong).toList());
    }
  }

  private static long scatter(long i) {
    long h = i * 0x9E3779B97F4A7C15L;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    return h ^ (h >>> 33);
  }

  private static Long asLong(Object value) {
    return value == null ? null : ((Number) value).longValue();
  }
}
