package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericData;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Types;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
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
    try (CloseableIterable<org.apache.iceberg.data.Record> rows =
        IcebergGenerics.read(load()).build()) {
      rows.forEach(r -> read.put((Long) r.getField("id"), (String) r.getField("name")));
    }
    assertThat(read).isEqualTo(expected);
  }

  private static Path localPath(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }
}
