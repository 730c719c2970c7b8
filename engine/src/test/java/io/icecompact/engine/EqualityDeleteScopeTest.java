package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
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
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which files an equality delete applies to, by the spec's rules, when the group's index holds them
 * all: a delete written under a partitioned spec deletes its key in its own partition only; one
 * written under an unpartitioned spec (a global delete, here after the table's spec evolved)
 * deletes it in every partition; and a key written again after its delete lives.
 */
class EqualityDeleteScopeTest extends EngineTestBase {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "part", Types.StringType.get()),
          Types.NestedField.optional(3, "v", Types.StringType.get()));

  @ParameterizedTest
  @EnumSource(
      value = RewritePathChoice.class,
      names = {"GENERIC", "AUTO"})
  void partitionAndGlobalDeletesApplyWhereTheSpecSays(RewritePathChoice path) {
    Table table =
        access
            .catalog()
            .createTable(
                TableIdentifier.parse(TABLE),
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    table.updateSpec().addField("part").commit();
    PartitionSpec unpartitioned = table.specs().get(0);
    PartitionSpec byPart = table.spec();
    StructLike a = partition(byPart, "a");
    StructLike b = partition(byPart, "b");

    commitData(table, byPart, a, "a", 1, 2, 3, 4, 5);
    commitData(table, byPart, b, "b", 1, 2, 3, 4, 5);
    commitData(table, byPart, b, "b", 6, 7);
    table.newRowDelta().addDeletes(equalityDelete(table, byPart, a, 2)).commit(); // id 2 in a only
    table
        .newRowDelta()
        .addDeletes(equalityDelete(table, unpartitioned, null, 3))
        .commit(); // id 3 everywhere
    commitData(table, byPart, b, "b", 3); // written again after its delete: lives

    Map<String, Long> expected = new TreeMap<>();
    for (String row :
        List.of(
            "(1, a, v)",
            "(4, a, v)",
            "(5, a, v)",
            "(1, b, v)",
            "(2, b, v)",
            "(3, b, v)",
            "(4, b, v)",
            "(5, b, v)",
            "(6, b, v)",
            "(7, b, v)")) {
      expected.put(row, 1L);
    }
    assertThat(LiveRows.multiset(table)).as("Iceberg's reader").isEqualTo(expected);

    JobResult result =
        new EmbeddedJobRunner(2, ProgressListener.NONE, GroupInterceptor.NONE, path)
            .run(job(options("rewrite-all", "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    assertThat(LiveRows.multiset(table)).isEqualTo(expected);
    assertThat(liveDataFiles(table)).hasSize(2);
  }

  private static StructLike partition(PartitionSpec spec, String part) {
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("part", part);
    org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(spec, SCHEMA);
    key.partition(row);
    return key.copy();
  }

  private static void commitData(
      Table table, PartitionSpec spec, StructLike partition, String part, long... ids) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    DataWriter<Record> writer =
        writers.newDataWriter(outputs.newOutputFile(spec, partition), spec, partition);
    try (writer) {
      for (long id : ids) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("part", part);
        row.setField("v", "v");
        writer.write(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }

  private static DeleteFile equalityDelete(
      Table table, PartitionSpec spec, StructLike partition, long id) {
    Schema keySchema = SCHEMA.select("id");
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 2, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(outputs.newOutputFile(spec, partition), spec, partition);
    try (writer) {
      GenericRecord key = GenericRecord.create(keySchema);
      key.setField("id", id);
      writer.write(key);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }
}
