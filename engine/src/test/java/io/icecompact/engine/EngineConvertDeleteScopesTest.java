package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Equality deletes whose reach is not one partition's files: keys with nulls (an equality delete
 * matches null to null), a key deleted and written again (the newer row lives), and a global
 * equality delete written with the unpartitioned spec after the table was partitioned, which
 * applies to the data files of every partition.
 */
class EngineConvertDeleteScopesTest extends EngineTestBase {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "tenant", Types.StringType.get()),
          Types.NestedField.optional(2, "id", Types.LongType.get()),
          Types.NestedField.optional(3, "payload", Types.StringType.get()),
          Types.NestedField.required(4, "region", Types.StringType.get()));

  private Table table;
  private int fileNumber;

  private JobSpec convert(String where) {
    return new JobSpec(
        null, TABLE, catalog, Map.of(), null, where, null, JobAction.CONVERT_EQUALITY_DELETES);
  }

  /**
   * Unpartitioned at first: rows with null tenants and ids, one global equality delete on (tenant,
   * id) including null keys; then partitioned by region: more rows, and a second global delete
   * (still the unpartitioned spec) that reaches both partitions' files, and a key written again
   * after it.
   */
  private void createTable(int formatVersion) {
    table = newUnpartitionedTable(formatVersion);
    PartitionSpec unpartitioned = table.spec();
    append(
        row(null, 1L, "a", "eu"),
        row(null, null, "b", "eu"),
        row("t1", null, "c", "us"),
        row("t1", 1L, "d", "us"),
        row("t2", 2L, "e", "eu"));
    deleteKeys(unpartitioned, key(null, null), key("t1", 1L));
    table.updateSpec().addField("region").commit();
    table.refresh();
    append(row(null, 1L, "f", "eu"), row("t2", 3L, "g", "eu"));
    append(row("t3", 4L, "h", "us"), row(null, null, "i", "us"), row("t1", 1L, "j", "us"));
    // global: the spec has no partition field, so it applies to every partition's older files
    deleteKeys(unpartitioned, key(null, 1L), key("t3", 4L), key("t1", 1L));
    append(row("t1", 1L, "k", "us")); // written again after its delete: lives
  }

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void convertingEveryFileRetiresGlobalDeletesAndKeepsNullKeysDeleted(int formatVersion) {
    createTable(formatVersion);
    Map<String, Long> before = LiveRows.multiset(table);
    assertThat(before.keySet())
        .as("live rows before, by payload")
        .anyMatch(row -> row.contains("k"))
        .noneMatch(row -> row.contains("|b|") || row.contains("|i|"));
    assertThat(countDeletes(table, FileContent.EQUALITY_DELETES)).isEqualTo(2);

    JobResult result = convertEverything(before);

    assertThat(result.conversion().convertedEqualityDeleteFilesCount()).isEqualTo(2);
  }

  /**
   * Converting only what may hold eu rows (the eu partition and the file of the unpartitioned
   * spec): the first global delete, written before the table was partitioned, applied to that file
   * alone and goes; the second also applies to the us partition's files, which the job did not
   * convert, so it stays, and the eu file's positions it matched are not committed.
   */
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void aGlobalDeleteStaysWhenAPartitionWasNotConverted(int formatVersion) {
    createTable(formatVersion);
    Map<String, Long> before = LiveRows.multiset(table);
    List<String> equalityBefore = equalityDeleteLocations(table);

    JobResult result = run(convert("region = 'eu'"));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.reason()).contains("1 equality delete files kept");
    assertThat(result.conversion().convertedEqualityDeleteFilesCount()).isEqualTo(1);
    assertThat(result.conversion().keptEqualityDeleteFilesCount()).isEqualTo(1);
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    // the later of the two global deletes is the one kept
    assertThat(equalityDeleteLocations(table)).containsExactly(equalityBefore.get(1));
    GroupOutcome eu =
        result.groups().stream()
            .filter(group -> group.partition().equals("region=eu"))
            .findFirst()
            .orElseThrow();
    assertThat(eu.status()).isEqualTo(GroupOutcome.Status.NOT_COMMITTED);
    assertThat(eu.outputFiles()).isZero();
    assertThat(eu.reason()).contains("still applies to data files this job did not convert");
    // what the job wrote and did not commit is deleted: its files left are the committed ones
    java.util.Set<String> live =
        liveDeletes(table).values().stream()
            .map(delete -> delete.location().replaceFirst("^file:", ""))
            .collect(java.util.stream.Collectors.toSet());
    assertThat(filesNamedFor(table, result.jobId()))
        .isNotEmpty()
        .allSatisfy(path -> assertThat(live).contains(path.toString()));
  }

  /**
   * A key column added after a data file was written: the file does not store it, and its rows read
   * it as null, so a delete of the null key deletes them all. That file's keys are read with
   * Iceberg's schema projection, the newer file's from its own key column; both are converted.
   */
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void aKeyColumnAddedAfterAFileWasWrittenReadsAsNullInIt(int formatVersion) {
    table = newUnpartitionedTable(formatVersion);
    append(row("t1", 1L, "a", "eu"), row("t1", 2L, "b", "eu"));
    table.updateSchema().addColumn("source", Types.StringType.get()).commit();
    table.refresh();
    Schema evolved = table.schema();
    int source = evolved.findField("source").fieldId();
    append(
        withSource(evolved, 3L, "x"), withSource(evolved, 4L, "y"), withSource(evolved, 5L, null));
    Schema keySchema = TypeUtil.select(evolved, java.util.Set.of(source));
    Record nullKey = GenericRecord.create(keySchema);
    Record x = GenericRecord.create(keySchema);
    x.setField("source", "x");
    deleteKeys(table.spec(), keySchema, new int[] {source}, nullKey, x);
    Map<String, Long> before = LiveRows.multiset(table);
    assertThat(before.values().stream().mapToLong(Long::longValue).sum())
        .as("only the row of source y lives")
        .isEqualTo(1);

    JobResult result = convertEverything(before);

    assertThat(result.conversion().addedPositionDeleteFilesCount()).isEqualTo(2);
  }

  private static Record withSource(Schema schema, long id, String source) {
    GenericRecord record = GenericRecord.create(schema);
    record.setField("tenant", "t2");
    record.setField("id", id);
    record.setField("payload", "p" + id);
    record.setField("region", "eu");
    record.setField("source", source);
    return record;
  }

  /**
   * Converts the whole table: every group converted, no equality delete left, the live rows still
   * {@code before}.
   */
  private JobResult convertEverything(Map<String, Long> before) {
    JobResult result = run(convert(null));
    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.CONVERTED);
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    assertThat(countDeletes(table, FileContent.EQUALITY_DELETES)).isZero();
    return result;
  }

  private Table newUnpartitionedTable(int formatVersion) {
    return access
        .catalog()
        .createTable(
            TableIdentifier.parse(TABLE),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)));
  }

  /** Live equality delete files, oldest first. */
  private static List<String> equalityDeleteLocations(Table table) {
    return liveDeletes(table).values().stream()
        .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
        .sorted(java.util.Comparator.comparingLong(DeleteFile::dataSequenceNumber))
        .map(DeleteFile::location)
        .toList();
  }

  private static Record row(String tenant, Long id, String payload, String region) {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("tenant", tenant);
    record.setField("id", id);
    record.setField("payload", payload);
    record.setField("region", region);
    return record;
  }

  private static Record key(String tenant, Long id) {
    GenericRecord record = GenericRecord.create(TypeUtil.select(SCHEMA, java.util.Set.of(1, 2)));
    record.setField("tenant", tenant);
    record.setField("id", id);
    return record;
  }

  /** One data file per partition of the current spec, in one append. */
  private void append(Record... rows) {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 1, fileNumber++).format(FileFormat.PARQUET).build();
    Map<String, List<Record>> byPartition = new java.util.TreeMap<>();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    for (Record row : rows) {
      key.partition(row);
      byPartition
          .computeIfAbsent(table.spec().partitionToPath(key), unused -> new java.util.ArrayList<>())
          .add(row);
    }
    var append = table.newAppend();
    for (List<Record> partitionRows : byPartition.values()) {
      PartitionKey partition = new PartitionKey(table.spec(), table.schema());
      partition.partition(partitionRows.get(0));
      DataWriter<Record> writer =
          writers.newDataWriter(
              outputs.newOutputFile(table.spec(), partition), table.spec(), partition);
      try (writer) {
        partitionRows.forEach(writer::write);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      DataFile file = writer.toDataFile();
      append.appendFile(file);
    }
    append.commit();
    table.refresh();
  }

  private void deleteKeys(PartitionSpec spec, Record... keys) {
    deleteKeys(spec, TypeUtil.select(SCHEMA, java.util.Set.of(1, 2)), new int[] {1, 2}, keys);
  }

  private void deleteKeys(PartitionSpec spec, Schema keySchema, int[] keyIds, Record... keys) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(keyIds)
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 2, fileNumber++).format(FileFormat.PARQUET).build();
    StructLike partition = null;
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(outputs.newOutputFile(spec, partition), spec, partition);
    try (writer) {
      for (Record key : keys) {
        writer.write(key);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteFile delete = writer.toDeleteFile();
    table.newRowDelta().addDeletes(delete).commit();
    table.refresh();
  }
}
