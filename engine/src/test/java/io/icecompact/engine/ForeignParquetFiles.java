package io.icecompact.engine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Parquet data files laid out as other engines write them, written with parquet-java's own writer
 * (not Iceberg's) under each engine's schema and settings, then added to an Iceberg table the way
 * {@code add_files} registers a file: metrics read from its footer. The footer is then edited where
 * an engine's writer differs from parquet-java's (its {@code created_by}, no page indexes, no
 * encoding statistics). Where each layout comes from is said on its constant.
 */
final class ForeignParquetFiles {
  /**
   * The table's columns: a unique id, a unique string (plain pages), a low-cardinality string
   * (dictionary), decimals of each physical type, a timestamp, an int, a double, and a string of
   * middling cardinality whose dictionary overflows mid-chunk under a small dictionary page size.
   */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "order_id", Types.LongType.get()),
          Types.NestedField.optional(2, "customer_name", Types.StringType.get()),
          Types.NestedField.optional(3, "region", Types.StringType.get()),
          Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)), // INT64
          Types.NestedField.optional(5, "price", Types.DecimalType.of(7, 2)), // INT32
          Types.NestedField.optional(
              6, "total", Types.DecimalType.of(22, 4)), // FIXED_LEN_BYTE_ARRAY(10)
          Types.NestedField.optional(7, "created_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(8, "qty", Types.IntegerType.get()),
          Types.NestedField.optional(9, "score", Types.DoubleType.get()),
          Types.NestedField.optional(10, "note", Types.StringType.get()));

  private static final OffsetDateTime FIRST =
      OffsetDateTime.of(2026, 6, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  /**
   * How an engine lays out a data file.
   *
   * @param createdBy the footer's {@code created_by}
   * @param requiredIds field ids written {@code required} although the table's field is optional
   * @param dictionaryPageSize bytes of dictionary before parquet-java falls back to PLAIN
   * @param pageRowLimit rows per page at most
   * @param pageIndexes whether column and offset indexes stay referenced from the footer
   * @param encodingStats whether the chunks keep their encoding statistics
   * @param bloomFilterColumns columns given a bloom filter
   * @param decimalsAsFixed whether every decimal is stored in fixed bytes (pyarrow's default)
   */
  record Layout(
      String createdBy,
      Set<Integer> requiredIds,
      CompressionCodecName codec,
      WriterVersion pages,
      int dictionaryPageSize,
      int pageRowLimit,
      boolean pageIndexes,
      boolean encodingStats,
      Set<String> bloomFilterColumns,
      boolean decimalsAsFixed) {}

  /**
   * Spark 3.5.7 with Iceberg 1.10 (measured here, /work/shared/notes/other-writers.md): parquet-mr
   * 1.16, a non-nullable DataFrame column written {@code required} under an optional field, ZSTD,
   * v1 pages, numbers and unique strings PLAIN (parquet-java's dictionary falls back on the first
   * page when it does not pay), low-cardinality strings dictionary-encoded, column and offset
   * indexes, no bloom filter.
   */
  static final Layout SPARK_3_5 =
      new Layout(
          "parquet-mr version 1.16.0",
          Set.of(1),
          CompressionCodecName.ZSTD,
          WriterVersion.PARQUET_1_0,
          1024 * 1024,
          20_000,
          true,
          true,
          Set.of(),
          false);

  /**
   * Spark with a bloom filter on the id ({@code write.parquet.bloom-filter-enabled.column.order_id}
   * set by the writing job, not on the table) and a small dictionary page, so the note column's
   * dictionary overflows mid-chunk: dictionary pages, then PLAIN ones, in one chunk.
   */
  static final Layout SPARK_BLOOM_AND_FALLBACK =
      new Layout(
          "parquet-mr version 1.16.0",
          Set.of(1),
          CompressionCodecName.ZSTD,
          WriterVersion.PARQUET_1_0,
          2048,
          250,
          true,
          true,
          Set.of("order_id"),
          false);

  /**
   * Trino's own Parquet writer (io.trino.parquet.writer.ParquetWriter): {@code created_by}
   * "parquet-mr-trino version N (build n/a)", v1 pages (PARQUET_1_0), parquet-java's value writers
   * (dictionary with fallback), no column or offset index (its footer has none), bloom filters only
   * for the columns of {@code parquet_bloom_filter_columns}; columns as optional as the Iceberg
   * schema. Codec: its {@code iceberg.compression-codec}; SNAPPY here, a codec other than the
   * table's ZSTD. Encoding statistics are left out, so only the chunk's encoding list tells
   * dictionary chunks apart.
   */
  static final Layout TRINO =
      new Layout(
          "parquet-mr-trino version 480 (build n/a)",
          Set.of(),
          CompressionCodecName.SNAPPY,
          WriterVersion.PARQUET_1_0,
          1024 * 1024,
          20_000,
          false,
          false,
          Set.of("order_id"),
          false);

  /**
   * PyIceberg on pyarrow ({@code pyiceberg.io.pyarrow._get_parquet_writer_kwargs}): {@code
   * created_by} "parquet-cpp-arrow version N", the table's codec (ZSTD, PyIceberg's default),
   * dictionary on with {@code write.parquet.dict-size-bytes}, pyarrow's default v1 data pages,
   * chunk statistics, no page index ({@code write_page_index} defaults to false); nullability from
   * the Iceberg schema; decimals in fixed bytes whatever their precision (pyarrow's {@code
   * store_decimal_as_integer} defaults to false and PyIceberg's append does not set it, where
   * Iceberg's writer uses INT32/INT64). (pyarrow keeps numbers dictionary-encoded up to the
   * dictionary limit where parquet-java falls back: this fixture's unique ids are PLAIN.)
   */
  static final Layout PYICEBERG =
      new Layout(
          "parquet-cpp-arrow version 18.1.0",
          Set.of(),
          CompressionCodecName.ZSTD,
          WriterVersion.PARQUET_1_0,
          2 * 1024 * 1024,
          20_000,
          false,
          true,
          Set.of(),
          true);

  /**
   * pyarrow with {@code data_page_version="2.0"} and GZIP: v2 data pages (levels outside the
   * compressed values).
   */
  static final Layout PYARROW_V2_PAGES_GZIP =
      new Layout(
          "parquet-cpp-arrow version 18.1.0",
          Set.of(),
          CompressionCodecName.GZIP,
          WriterVersion.PARQUET_2_0,
          2 * 1024 * 1024,
          500,
          false,
          true,
          Set.of(),
          false);

  private ForeignParquetFiles() {}

  /** {@code count} rows from {@code firstId}, a few nulls in every optional column but the id. */
  static List<Record> rows(Schema schema, long firstId, int count) {
    Random random = new Random(firstId);
    List<Record> rows = new ArrayList<>(count);
    for (long id = firstId; id < firstId + count; id++) {
      GenericRecord row = GenericRecord.create(schema);
      row.set(0, id);
      row.set(1, "customer-" + Long.toHexString(random.nextLong()));
      row.set(2, random.nextInt(20) == 0 ? null : "region-" + random.nextInt(8));
      row.set(
          3,
          random.nextInt(30) == 0
              ? null
              : BigDecimal.valueOf(random.nextInt(10_000_000) - 1_000_000, 2));
      row.set(4, BigDecimal.valueOf(random.nextInt(1_000_000), 2));
      row.set(
          5,
          new BigDecimal(
              new java.math.BigInteger(70, random).subtract(java.math.BigInteger.ONE.shiftLeft(69)),
              4));
      row.set(6, FIRST.plus(id * 1500 + random.nextInt(1000), ChronoUnit.MILLIS));
      row.set(7, random.nextInt(10) == 0 ? null : random.nextInt(100));
      row.set(
          8,
          random.nextInt(10) == 0
              ? null
              : random.nextInt(50) == 0 ? Double.NaN : random.nextGaussian());
      row.set(9, random.nextInt(7) == 0 ? null : "note-" + (id / 3));
      rows.add(row);
    }
    return rows;
  }

  /**
   * Writes {@code rows} as {@code layout} lays them out and returns the file as add_files registers
   * it.
   */
  static DataFile write(Table table, Layout layout, List<Record> rows) {
    MessageType type = parquetType(table.schema(), layout.requiredIds(), layout.decimalsAsFixed());
    String location =
        table.locationProvider().newDataLocation("foreign-" + System.nanoTime() + ".parquet");
    Path path =
        location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    try {
      Files.createDirectories(path.getParent());
      ExampleParquetWriter.Builder builder =
          ExampleParquetWriter.builder(new LocalOutputFile(path))
              .withType(type)
              .withCompressionCodec(layout.codec())
              .withWriterVersion(layout.pages())
              .withDictionaryEncoding(true)
              .withDictionaryPageSize(layout.dictionaryPageSize())
              .withPageRowCountLimit(layout.pageRowLimit());
      for (String column : layout.bloomFilterColumns()) {
        builder = builder.withBloomFilterEnabled(column, true);
      }
      SimpleGroupFactory groups = new SimpleGroupFactory(type);
      try (ParquetWriter<Group> writer = builder.build()) {
        for (Record row : rows) {
          writer.write(group(groups.newGroup(), type, row));
        }
      }
      editFooter(path, layout);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    InputFile input = table.io().newInputFile(location);
    return DataFiles.builder(table.spec())
        .withInputFile(input)
        .withFormat(FileFormat.PARQUET)
        .withMetrics(ParquetUtil.fileMetrics(input, MetricsConfig.forTable(table)))
        .build();
  }

  /**
   * The table's Parquet schema as Iceberg converts it, with {@code requiredIds} made required and,
   * with {@code decimalsAsFixed}, every decimal in the fewest fixed bytes its precision needs.
   */
  static MessageType parquetType(Schema schema, Set<Integer> requiredIds, boolean decimalsAsFixed) {
    MessageType converted = ParquetSchemaUtil.convert(schema, "spark_schema");
    List<Type> fields = new ArrayList<>();
    for (Type field : converted.getFields()) {
      PrimitiveType primitive = field.asPrimitiveType();
      Type.Repetition repetition =
          requiredIds.contains(primitive.getId().intValue())
              ? Type.Repetition.REQUIRED
              : primitive.getRepetition();
      PrimitiveType.PrimitiveTypeName physical = primitive.getPrimitiveTypeName();
      int length = primitive.getTypeLength();
      if (decimalsAsFixed
          && primitive.getLogicalTypeAnnotation()
              instanceof
              org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
                  decimal) {
        physical = PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
        length = org.apache.iceberg.types.TypeUtil.decimalRequiredBytes(decimal.getPrecision());
      }
      org.apache.parquet.schema.Types.PrimitiveBuilder<PrimitiveType> builder =
          org.apache.parquet.schema.Types.primitive(physical, repetition);
      if (physical == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
        builder = builder.length(length);
      }
      fields.add(
          builder
              .as(primitive.getLogicalTypeAnnotation())
              .id(primitive.getId().intValue())
              .named(primitive.getName()));
    }
    return new MessageType(converted.getName(), fields);
  }

  private static Group group(Group group, MessageType type, Record row) {
    for (int i = 0; i < type.getFieldCount(); i++) {
      Object value = row.get(i);
      if (value == null) {
        continue;
      }
      PrimitiveType column = type.getType(i).asPrimitiveType();
      switch (column.getPrimitiveTypeName()) {
        case INT64 ->
            group.add(
                i,
                value instanceof OffsetDateTime time
                    ? ChronoUnit.MICROS.between(
                        OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), time)
                    : value instanceof BigDecimal decimal
                        ? decimal.unscaledValue().longValueExact()
                        : (Long) value);
        case INT32 ->
            group.add(
                i,
                value instanceof BigDecimal decimal
                    ? decimal.unscaledValue().intValueExact()
                    : (Integer) value);
        case DOUBLE -> group.add(i, (Double) value);
        case FIXED_LEN_BYTE_ARRAY ->
            group.add(
                i,
                Binary.fromConstantByteArray(
                    fixed(
                        ((BigDecimal) value).unscaledValue().toByteArray(),
                        column.getTypeLength())));
        default -> group.add(i, Binary.fromString((String) value));
      }
    }
    return group;
  }

  /**
   * Two's complement bytes sign-extended to {@code length}, as decimals are stored in fixed bytes.
   */
  private static byte[] fixed(byte[] bytes, int length) {
    byte[] out = new byte[length];
    byte sign = bytes[0] < 0 ? (byte) -1 : 0;
    java.util.Arrays.fill(out, 0, length - bytes.length, sign);
    System.arraycopy(bytes, 0, out, length - bytes.length, bytes.length);
    return out;
  }

  /** Rewrites the footer where the engine's writer differs from parquet-java's. */
  private static void editFooter(Path path, Layout layout) throws IOException {
    byte[] bytes = Files.readAllBytes(path);
    int length =
        ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int start = bytes.length - 8 - length;
    FileMetaData footer = Util.readFileMetaData(new ByteArrayInputStream(bytes, start, length));
    footer.setCreated_by(layout.createdBy());
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        if (!layout.pageIndexes()) {
          chunk.unsetColumn_index_offset();
          chunk.unsetColumn_index_length();
          chunk.unsetOffset_index_offset();
          chunk.unsetOffset_index_length();
        }
        if (!layout.encodingStats()) {
          chunk.getMeta_data().unsetEncoding_stats();
        }
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
    out.write(bytes, 0, start);
    Util.writeFileMetaData(footer, out);
    int newLength = out.size() - start;
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(newLength).array());
    out.write("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    Files.write(path, out.toByteArray());
  }
}
