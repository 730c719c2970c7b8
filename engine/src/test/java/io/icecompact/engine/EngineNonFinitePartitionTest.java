package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Identity partitions on a double and a float column holding NaN, ±Infinity, -0.0, 0.0 and null:
 * Iceberg's JSON writes the non-finite values as strings its own parsers reject, so the plan, the
 * workers' results and the commit must carry them some other way. Every partition is compacted and
 * keeps its rows.
 */
class EngineNonFinitePartitionTest extends EngineTestBase {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "d", Types.DoubleType.get()),
          Types.NestedField.optional(3, "f", Types.FloatType.get()));
  private static final Object[][] PARTITIONS = {
    {Double.NaN, Float.NaN},
    {Double.POSITIVE_INFINITY, Float.POSITIVE_INFINITY},
    {Double.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY},
    {-0.0d, -0.0f},
    {0.0d, 0.0f},
    {null, null},
    {2.5d, 2.5f},
  };
  private static final int FILES_PER_PARTITION = 3;

  @Test
  void nanInfinityAndSignedZeroPartitionsAreCompacted() {
    Table table = createNonFiniteTable();
    assertThat(liveDataFiles(table)).hasSize(PARTITIONS.length * FILES_PER_PARTITION);
    Map<String, Long> before = LiveRows.multiset(table);
    assertThat(LiveRows.count(before)).isEqualTo(PARTITIONS.length * FILES_PER_PARTITION * 10L);

    JobResult result = run(job(options(RewriteOptions.MIN_INPUT_FILES, "2")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.verification().problems()).isEmpty();
    assertThat(result.verification().verified()).isTrue();
    assertThat(result.groups()).hasSize(PARTITIONS.length);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(PARTITIONS.length * FILES_PER_PARTITION);
    assertThat(result.addedDataFilesCount()).isEqualTo(PARTITIONS.length);
    // one file per partition, each partition its own (NaN, -0.0 and 0.0 are distinct partitions)
    Map<List<Object>, Integer> filesByPartition = new HashMap<>();
    for (DataFile file : liveDataFiles(table)) {
      List<Object> partition =
          Arrays.asList(
              file.partition().get(0, Double.class), file.partition().get(1, Float.class));
      filesByPartition.merge(partition, 1, Integer::sum);
    }
    Map<List<Object>, Integer> expected = new HashMap<>();
    for (Object[] partition : PARTITIONS) {
      expected.put(Arrays.asList(partition), 1);
    }
    assertThat(filesByPartition).isEqualTo(expected);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    assertThat(filesNamedFor(table, result.jobId())).hasSize(PARTITIONS.length);
  }

  private Table createNonFiniteTable() {
    if (access.catalog() instanceof org.apache.iceberg.catalog.SupportsNamespaces namespaces
        && !namespaces.namespaceExists(Namespace.of("db"))) {
      namespaces.createNamespace(Namespace.of("db"));
    }
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("d").identity("f").build();
    Table table =
        access
            .catalog()
            .createTable(
                TableIdentifier.parse(TABLE),
                SCHEMA,
                spec,
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    long id = 0;
    int task = 0;
    for (int file = 0; file < FILES_PER_PARTITION; file++) {
      for (Object[] partition : PARTITIONS) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          GenericRecord row = GenericRecord.create(SCHEMA);
          row.setField("id", id++);
          row.setField("d", partition[0]);
          row.setField("f", partition[1]);
          rows.add(row);
        }
        table.newAppend().appendFile(write(table, rows, task++)).commit();
      }
    }
    table.refresh();
    return table;
  }

  private static DataFile write(Table table, List<Record> rows, int taskId) {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, taskId).format(FileFormat.PARQUET).build();
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    partition.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(rows.get(0)));
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .build()
            .newDataWriter(files.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }
}
