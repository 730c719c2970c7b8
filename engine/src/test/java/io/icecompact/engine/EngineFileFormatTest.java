package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tables in every format Iceberg writes (issue 42): ORC and Avro data and delete files are read
 * with Iceberg's own readers, every delete applied, and written in the table's {@code
 * write.format.default}, as Spark's {@code rewrite_data_files} writes them. A job whose every group
 * failed ends FAILED with each group's reason.
 */
class EngineFileFormatTest extends EngineTestBase {

  static Stream<Arguments> formats() {
    return Stream.of(
        Arguments.of("orc", 2),
        Arguments.of("avro", 2),
        Arguments.of("parquet", 2),
        Arguments.of("orc", 3),
        Arguments.of("avro", 3));
  }

  @ParameterizedTest(name = "{0}, v{1}")
  @MethodSource("formats")
  void aTableIsCompactedInItsOwnFormatWithEveryDeleteApplied(String format, int version) {
    Table table =
        FragmentedTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            new FragmentedTable.Shape(4, 5, 200, version, 2, 10, true),
            Map.of(TableProperties.DEFAULT_FILE_FORMAT, format));
    FileFormat expected = FileFormat.fromString(format);
    assertThat(liveDataFiles(table)).extracting(DataFile::format).containsOnly(expected);
    assertThat(liveDeletes(table)).as("the table has deletes to apply").isNotEmpty();
    Map<String, Long> rows = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    JobResult result = run(job());

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    assertThat(result.failedGroups()).isZero();
    Table after = load();
    assertThat(newSnapshots(after, snapshotsBefore)).hasSize(1);
    assertThat(liveDataFiles(after)).extracting(DataFile::format).containsOnly(expected);
    assertThat(liveDataFiles(after)).hasSize(4); // one file per day partition
    assertThat(countDeletes(after, FileContent.POSITION_DELETES)).isZero();
    assertThat(countDeletes(after, FileContent.EQUALITY_DELETES)).isZero();
    assertThat(LiveRows.multiset(after)).isEqualTo(rows);
    if (expected != FileFormat.PARQUET) {
      assertThat(result.groups())
          .as("the route says why the group took the generic path")
          .allSatisfy(
              g -> assertThat(g.rewritePathReason()).contains("write.format.default=" + format));
    }
  }

  /**
   * A table whose {@code write.format.default} changed from Parquet to ORC: each group holds files
   * of both formats, and the output is ORC.
   */
  @ParameterizedTest
  @ValueSource(strings = {"orc", "avro"})
  void aFormatChangedMidTableRewritesMixedGroupsIntoTheNewFormat(String format) {
    Table table = create(SMALL);
    table.updateProperties().set(TableProperties.DEFAULT_FILE_FORMAT, format).commit();
    FragmentedTable.appendDay(table, 0, 100, 7); // a day-0 file in the new format
    Map<String, Long> rows = LiveRows.multiset(load());
    assertThat(liveDataFiles(load()))
        .extracting(DataFile::format)
        .contains(FileFormat.PARQUET, FileFormat.fromString(format));

    JobResult result = run(job());

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    assertThat(liveDataFiles(load()))
        .extracting(DataFile::format)
        .containsOnly(FileFormat.fromString(format));
    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
  }

  /**
   * Every data file damaged: each group fails and says why, and the job ends FAILED with no advice
   * to re-commit (nothing was rewritten, so a re-commit has nothing to commit), on the local FileIO
   * and on HadoopFileIO, whose listing of the never-made outputs folder threw
   * FileNotFoundException.
   */
  @ParameterizedTest
  @ValueSource(strings = {"", "org.apache.iceberg.hadoop.HadoopFileIO"})
  void aJobWhoseEveryGroupFailedEndsFailedWithEachGroupsReason(String fileIo) throws IOException {
    Table table = create(SMALL);
    int snapshotsBefore = snapshots(table).size();
    for (DataFile file : liveDataFiles(table)) {
      Files.write(localPath(file.location()), "not a data file".getBytes());
    }
    Map<String, String> properties = new HashMap<>(catalog);
    if (!fileIo.isEmpty()) {
      properties.put("io-impl", fileIo);
      assertThat(HadoopFileIO.class.getName()).isEqualTo(fileIo);
    }

    JobResult result = run(new JobSpec(null, TABLE, properties, Map.of(), null, null, null));

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.FAILED);
    assertThat(result.failedGroups()).isEqualTo(result.groups().size()).isPositive();
    List<String> reasons = result.groups().stream().map(GroupOutcome::reason).toList();
    assertThat(reasons)
        .allSatisfy(reason -> assertThat(reason).startsWith("CorruptInputFileException: "));
    assertThat(String.valueOf(result.reason())).doesNotContain("recommit");
    assertThat(snapshots(load())).hasSize(snapshotsBefore);
  }

  /**
   * Files written without Iceberg field ids, as a table migrated from Hive holds them ({@code
   * migrate}, {@code add_files}): read through the table's {@code schema.name-mapping.default}, on
   * whichever path the group takes, so no column comes back null.
   */
  @ParameterizedTest
  @EnumSource(RewritePathChoice.class)
  void filesWithoutFieldIdsAreReadThroughTheNameMapping(RewritePathChoice choice)
      throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));
    Table table =
        access
            .catalog()
            .createTable(
                TableIdentifier.parse(TABLE),
                schema,
                PartitionSpec.unpartitioned(),
                Map.of(
                    TableProperties.FORMAT_VERSION,
                    "2",
                    TableProperties.DEFAULT_NAME_MAPPING,
                    NameMappingParser.toJson(MappingUtil.create(schema))));
    org.apache.avro.Schema avro =
        org.apache.avro.SchemaBuilder.record("row")
            .fields()
            .optionalString("name") // not the table's order: positions would mismatch the columns
            .optionalLong("id")
            .endRecord();
    Map<Long, String> expected = new java.util.TreeMap<>();
    AppendFiles append = table.newAppend();
    for (int file = 0; file < 5; file++) { // min-input-files
      Path path = localPath(table.location()).resolve("data/hive-" + file + ".parquet");
      Files.createDirectories(path.getParent());
      try (ParquetWriter<GenericData.Record> writer =
          AvroParquetWriter.<GenericData.Record>builder(new LocalOutputFile(path))
              .withSchema(avro)
              .build()) {
        for (long i = 0; i < 50; i++) {
          long id = file * 100L + i;
          GenericData.Record row = new GenericData.Record(avro);
          row.put("id", id);
          row.put("name", "name-" + id);
          writer.write(row);
          expected.put(id, "name-" + id);
        }
      }
      append.appendFile(
          DataFiles.builder(table.spec())
              .withPath(path.toString())
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(Files.size(path))
              .withRecordCount(50)
              .build());
    }
    append.commit();

    JobResult result =
        new EmbeddedJobRunner(2, ProgressListener.NONE, GroupInterceptor.NONE, choice).run(job());

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    assertThat(liveDataFiles(load())).hasSize(1);
    Map<Long, String> read = new java.util.TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(load()).build()) {
      rows.forEach(r -> read.put((Long) r.getField("id"), (String) r.getField("name")));
    }
    assertThat(read).isEqualTo(expected);
  }

  /**
   * An ORC table without deletes whose files hold full enough stripes is merged by copying the
   * stripes whole, as ORC's file merge does: the same rows, every input stripe in the outputs, and
   * each output's metrics read from its footer.
   */
  @Test
  void orcFilesWithoutDeletesAreMergedByCopyingTheirStripes() throws IOException {
    Table table =
        FragmentedTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            new FragmentedTable.Shape(2, 6, 3000, 2, 0, 0, true),
            Map.of(
                TableProperties.DEFAULT_FILE_FORMAT,
                "orc",
                TableProperties.ORC_STRIPE_SIZE_BYTES,
                "65536"));
    Map<String, Long> rows = LiveRows.multiset(table);
    int stripesBefore = 0;
    for (DataFile file : liveDataFiles(table)) {
      stripesBefore += orcStripes(file);
    }

    JobResult result = run(job());

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    assertThat(result.groups())
        .allSatisfy(
            g -> {
              assertThat(g.rewritePath()).isEqualTo(RewritePath.ORC_STRIPES);
              assertThat(g.rewritePathReason()).contains("ORC stripes copied whole");
            });
    Table after = load();
    List<DataFile> outputs = liveDataFiles(after);
    assertThat(outputs).hasSize(2).extracting(DataFile::format).containsOnly(FileFormat.ORC);
    assertThat(LiveRows.multiset(after)).isEqualTo(rows);
    int stripesAfter = 0;
    for (DataFile output : outputs) {
      stripesAfter += orcStripes(output);
      assertThat(output.recordCount()).isEqualTo(6 * 3000);
      assertThat(output.splitOffsets()).hasSize(orcStripes(output));
    }
    assertThat(stripesAfter).isEqualTo(stripesBefore);
    try (CloseableIterable<FileScanTask> tasks = after.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        assertThat(task.file().lowerBounds()).as("metrics from the footer").containsKey(1);
        assertThat(task.file().valueCounts()).containsEntry(1, 6L * 3000);
      }
    }
  }

  /**
   * Where a stripe copy would not write what Spark's rewrite writes, or would not pay, the group
   * takes the generic path and its reason says why.
   */
  @ParameterizedTest
  @ValueSource(strings = {"deletes", "small stripes", "small stripes in big files", "v3", "codec"})
  void anOrcGroupTheStripeCopyDoesNotFitIsRewrittenAndSaysWhy(String why) {
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.DEFAULT_FILE_FORMAT, "orc");
    if (!why.equals("small stripes")) {
      properties.put(TableProperties.ORC_STRIPE_SIZE_BYTES, "65536");
    }
    Table table =
        FragmentedTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            new FragmentedTable.Shape(
                2,
                6,
                why.equals("small stripes in big files") ? 20_000 : 3000,
                why.equals("v3") ? 3 : 2,
                why.equals("deletes") ? 12 : 0,
                0,
                true),
            properties);
    if (why.equals("small stripes in big files")) {
      // files of several 64 KB stripes each, and now a stripe size they fall far short of
      table.updateProperties().set(TableProperties.ORC_STRIPE_SIZE_BYTES, "4194304").commit();
    }
    if (why.equals("codec")) {
      table.updateProperties().set(TableProperties.ORC_COMPRESSION, "zstd").commit();
    }
    Map<String, Long> rows = LiveRows.multiset(load());

    JobResult result = run(job());

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    String expected =
        switch (why) {
          case "deletes" -> "deletes apply to";
          case "small stripes" -> "files average";
          case "small stripes in big files" -> "stripes average";
          case "v3" -> "row lineage";
          default -> "the table writes ZSTD";
        };
    assertThat(result.groups())
        .allSatisfy(
            g -> {
              assertThat(g.rewritePath()).isEqualTo(RewritePath.GENERIC);
              assertThat(g.rewritePathReason()).contains("ORC stripes not copied", expected);
            });
    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
  }

  private static int orcStripes(DataFile file) throws IOException {
    try (Reader orc =
        OrcFile.createReader(
            new org.apache.hadoop.fs.Path(localPath(file.location()).toUri()),
            OrcFile.readerOptions(new Configuration()))) {
      return orc.getStripes().size();
    }
  }

  /**
   * Each format's write properties reach the outputs, as Iceberg's writers apply them: ORC's codec
   * and stripe size, Avro's codec, and the target file size, which splits a partition's rows over
   * several files.
   */
  @ParameterizedTest
  @ValueSource(strings = {"orc", "avro"})
  void theFormatsWritePropertiesApplyToTheOutputs(String format) throws IOException {
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.DEFAULT_FILE_FORMAT, format);
    properties.put(TableProperties.ORC_COMPRESSION, "lz4");
    properties.put(TableProperties.ORC_STRIPE_SIZE_BYTES, "65536");
    properties.put(TableProperties.AVRO_COMPRESSION, "snappy");
    Table table =
        FragmentedTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            new FragmentedTable.Shape(1, 6, 20_000, 2, 0, 0, true),
            properties);
    Map<String, Long> rows = LiveRows.multiset(table);
    long inputBytes = liveDataFiles(table).stream().mapToLong(DataFile::fileSizeInBytes).sum();

    JobResult result =
        run(
            job(
                options(
                    "target-file-size-bytes",
                    Long.toString(inputBytes / 3),
                    "min-input-files",
                    "2")));

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    Table after = load();
    List<DataFile> outputs = liveDataFiles(after);
    assertThat(LiveRows.multiset(after)).isEqualTo(rows);
    assertThat(outputs).extracting(DataFile::format).containsOnly(FileFormat.fromString(format));
    assertThat(outputs).as("the target size splits the partition's rows").hasSizeGreaterThan(1);
    for (DataFile output : outputs) {
      Path path = localPath(output.location());
      if (format.equals("orc")) {
        try (Reader orc =
            OrcFile.createReader(
                new org.apache.hadoop.fs.Path(path.toUri()),
                OrcFile.readerOptions(new Configuration()))) {
          assertThat(orc.getCompressionKind()).isEqualTo(CompressionKind.LZ4);
          assertThat(orc.getStripes().size())
              .as("stripes of %s (write.orc.stripe-size-bytes=65536)", path)
              .isGreaterThan(1);
        }
      } else {
        try (DataFileReader<Object> avro =
            new DataFileReader<>(path.toFile(), new GenericDatumReader<>())) {
          assertThat(avro.getMetaString("avro.codec")).isEqualTo("snappy");
        }
      }
    }
  }

  /**
   * A wide ORC table with nested columns (a struct within a struct, a list of structs, a map),
   * nulls at every level, and rows deleted by position: compacted to ORC with every row, nested
   * value and null as it was.
   */
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void aWideNestedOrcTableKeepsEveryValue(int formatVersion) {
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    Type[] types = {
      Types.IntegerType.get(),
      Types.LongType.get(),
      Types.DoubleType.get(),
      Types.StringType.get(),
      Types.BooleanType.get(),
      Types.DateType.get(),
      Types.TimestampType.withZone(),
      Types.DecimalType.of(18, 4),
      Types.BinaryType.get(),
      Types.FloatType.get()
    };
    int id = 2;
    for (int i = 0; i < 40; i++) {
      fields.add(Types.NestedField.optional(id++, "c" + i, types[i % types.length]));
    }
    Types.StructType geo =
        Types.StructType.of(
            Types.NestedField.optional(id++, "lat", Types.DoubleType.get()),
            Types.NestedField.optional(id++, "lon", Types.DoubleType.get()));
    Types.StructType address =
        Types.StructType.of(
            Types.NestedField.optional(id++, "street", Types.StringType.get()),
            Types.NestedField.optional(id++, "zip", Types.IntegerType.get()),
            Types.NestedField.optional(id++, "geo", geo));
    Types.StructType item =
        Types.StructType.of(
            Types.NestedField.required(id++, "sku", Types.StringType.get()),
            Types.NestedField.optional(id++, "qty", Types.IntegerType.get()));
    fields.add(Types.NestedField.optional(id++, "address", address));
    fields.add(Types.NestedField.optional(id++, "items", Types.ListType.ofOptional(id++, item)));
    fields.add(
        Types.NestedField.optional(
            id++,
            "attrs",
            Types.MapType.ofOptional(id++, id++, Types.StringType.get(), Types.LongType.get())));
    Schema schema = new Schema(fields);
    Table table =
        access
            .catalog()
            .createTable(
                TableIdentifier.parse(TABLE),
                schema,
                PartitionSpec.unpartitioned(),
                Map.of(
                    TableProperties.FORMAT_VERSION,
                    Integer.toString(formatVersion),
                    TableProperties.DEFAULT_FILE_FORMAT,
                    "orc"));
    Random random = new Random(7);
    List<DataFile> written = new ArrayList<>();
    for (int file = 0; file < 5; file++) {
      List<Record> rows = new ArrayList<>();
      for (int r = 0; r < 300; r++) {
        rows.add(wideRow(schema, file * 1000L + r, random));
      }
      DataFile data = FragmentedTable.dataFile(table, rows);
      table.newAppend().appendFile(data).commit();
      written.add(data);
    }
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.positionDelete(table, written.get(1), 0, 7, 299))
        .addDeletes(FragmentedTable.positionDelete(table, written.get(3), 150))
        .commit();
    Map<String, Long> rows = LiveRows.multiset(load());
    assertThat(LiveRows.count(rows)).isEqualTo(5 * 300 - 4);

    JobResult result = run(job());

    assertThat(result.status()).as("%s", result).isEqualTo(JobStatus.COMMITTED);
    Table after = load();
    assertThat(liveDataFiles(after))
        .hasSize(1)
        .extracting(DataFile::format)
        .containsOnly(FileFormat.ORC);
    assertThat(countDeletes(after, FileContent.POSITION_DELETES)).isZero();
    assertThat(LiveRows.multiset(after)).isEqualTo(rows);
  }

  /** A row of the wide schema: about one value in five null, at every level. */
  private static Record wideRow(Schema schema, long id, Random random) {
    GenericRecord row = GenericRecord.create(schema);
    row.setField("id", id);
    for (Types.NestedField field : schema.columns()) {
      if (field.fieldId() == 1 || random.nextInt(5) == 0) {
        continue;
      }
      row.setField(field.name(), value(field.type(), random));
    }
    return row;
  }

  private static Object value(Type type, Random random) {
    return switch (type.typeId()) {
      case INTEGER -> random.nextInt(1000);
      case LONG -> random.nextLong();
      case DOUBLE -> random.nextDouble();
      case FLOAT -> random.nextFloat();
      case STRING -> "s" + random.nextInt(100_000);
      case BOOLEAN -> random.nextBoolean();
      case DATE -> LocalDate.of(2026, 1, 1).plusDays(random.nextInt(365));
      case TIMESTAMP ->
          OffsetDateTime.of(2026, 6, 1, 0, 0, 0, 0, ZoneOffset.UTC)
              .plusSeconds(random.nextInt(1_000_000));
      case DECIMAL -> BigDecimal.valueOf(random.nextInt(1_000_000), 4);
      case BINARY -> ByteBuffer.wrap(new byte[] {(byte) random.nextInt(), 1, 2});
      case STRUCT -> {
        GenericRecord struct = GenericRecord.create(type.asStructType());
        for (Types.NestedField field : type.asStructType().fields()) {
          if (field.isRequired() || random.nextInt(5) != 0) {
            struct.setField(field.name(), value(field.type(), random));
          }
        }
        yield struct;
      }
      case LIST -> {
        List<Object> list = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          list.add(random.nextInt(5) == 0 ? null : value(type.asListType().elementType(), random));
        }
        yield list;
      }
      case MAP -> {
        Map<Object, Object> map = new HashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          map.put(
              value(type.asMapType().keyType(), random),
              random.nextInt(5) == 0 ? null : value(type.asMapType().valueType(), random));
        }
        yield map;
      }
      default -> throw new IllegalArgumentException("no value for " + type);
    };
  }

  private static Path localPath(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }
}
