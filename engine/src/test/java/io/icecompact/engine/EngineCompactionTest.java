package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.FragmentedTable.Shape;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * Rewrites that must keep every live row: deletes applied, lineage kept, evolved specs and schemas.
 */
class EngineCompactionTest extends EngineTestBase {

  @Test
  void v2TableWithPositionAndEqualityDeletesIsCompactedInOneReplaceSnapshot() {
    Table table = create(Shape.demo(2));
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    List<DataFile> inputs = liveDataFiles(table);
    Map<String, DeleteFile> deletesBefore = liveDeletes(table);
    Set<String> fileScopedPositionDeletes =
        deletesBefore.values().stream()
            .filter(
                d -> d.content() == FileContent.POSITION_DELETES && ContentFileUtil.isFileScoped(d))
            .map(DeleteFile::location)
            .collect(Collectors.toSet());
    long equalityDeleteFiles =
        deletesBefore.values().stream()
            .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
            .count();
    assertThat(inputs).hasSize(150);
    assertThat(fileScopedPositionDeletes).hasSize(6);
    assertThat(equalityDeleteFiles).isPositive();
    assertThat(deletesBefore).hasSize(6 + (int) equalityDeleteFiles);

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.reason()).isNull();
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(replace.summary()).containsEntry("icecompact.job-id", result.jobId());
    assertThat(result.snapshotIds()).containsExactly(replace.snapshotId());

    assertThat(liveDataFiles(table)).hasSize(30);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(150);
    assertThat(result.addedDataFilesCount()).isEqualTo(30);
    assertThat(result.removedDeleteFilesCount()).isEqualTo(6);
    assertThat(summaryLong(replace, SnapshotSummary.DELETED_FILES_PROP))
        .isEqualTo(result.rewrittenDataFilesCount());
    assertThat(summaryLong(replace, SnapshotSummary.ADDED_FILES_PROP))
        .isEqualTo(result.addedDataFilesCount());
    assertThat(summaryLong(replace, SnapshotSummary.REMOVED_DELETE_FILES_PROP))
        .isEqualTo(result.removedDeleteFilesCount());
    assertThat(summaryLong(replace, SnapshotSummary.TOTAL_DATA_FILES_PROP)).isEqualTo(30);
    // only the equality deletes stay in the table; the position deletes went with their data files
    assertThat(summaryLong(replace, SnapshotSummary.TOTAL_DELETE_FILES_PROP))
        .isEqualTo(equalityDeleteFiles);
    Set<String> removedDeletes = new HashSet<>();
    replace.removedDeleteFiles(table.io()).forEach(d -> removedDeletes.add(d.location()));
    assertThat(removedDeletes).isEqualTo(fileScopedPositionDeletes);
    assertThat(countDeletes(table, FileContent.POSITION_DELETES)).isZero();
    assertThat(result.rewrittenBytesCount())
        .isEqualTo(inputs.stream().mapToLong(DataFile::fileSizeInBytes).sum());
    assertThat(result.failedDataFilesCount()).isZero();
    assertThat(result.rewrittenGroups()).isEqualTo(30);
    assertThat(result.verification().verified()).isTrue();
    assertThat(result.verification().problems()).isEmpty();
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    assertThat(result.groups())
        .allSatisfy(g -> assertThat(g.snapshotId()).isEqualTo(replace.snapshotId()));

    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void v3TableKeepsRowLineageAndDropsTheDeletionVectorsOfRewrittenFiles() {
    Table table = create(Shape.demo(3));
    Schema withLineage = MetadataColumns.schemaWithRowLineage(table.schema());
    Map<String, Long> before = LiveRows.multiset(table, withLineage);
    int snapshotsBefore = snapshots(table).size();
    Set<String> dvs =
        liveDeletes(table).values().stream()
            .filter(d -> d.format() == FileFormat.PUFFIN)
            .map(DeleteFile::location)
            .collect(Collectors.toSet());
    assertThat(dvs).hasSize(6);
    assertThat(rowIds(table)).doesNotContainNull();

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(liveDataFiles(table)).hasSize(30);
    assertThat(result.removedDeleteFilesCount()).isEqualTo(6);
    assertThat(summaryLong(replace, SnapshotSummary.REMOVED_DVS_PROP)).isEqualTo(6);
    Set<String> removed = new HashSet<>();
    replace.removedDeleteFiles(table.io()).forEach(d -> removed.add(d.location()));
    assertThat(removed).isEqualTo(dvs);
    assertThat(liveDeletes(table).values()).noneMatch(d -> d.format() == FileFormat.PUFFIN);

    Map<String, Long> after = LiveRows.multiset(table, withLineage);
    assertThat(after).isEqualTo(before);
    List<Long> rowIds = rowIds(table);
    assertThat(rowIds)
        .doesNotContainNull()
        .doesNotHaveDuplicates()
        .hasSize((int) LiveRows.count(before));
  }

  @Test
  void v3DeletionVectorsSharingOnePuffinFileAreAllRemovedAndVerified() throws IOException {
    Table table = create(new Shape(4, 5, 200, 3, 0, 0, true));
    // one Puffin file holding the DVs of two files of one partition, as a Spark or Flink task
    // writes it
    int firstDay = liveDataFiles(table).get(0).partition().get(0, Integer.class);
    List<DataFile> day0 =
        liveDataFiles(table).stream()
            .filter(f -> f.partition().get(0, Integer.class) == firstDay)
            .limit(2)
            .toList();
    assertThat(day0).hasSize(2);
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 7, 7).format(FileFormat.PUFFIN).build();
    DVFileWriter dvs = new BaseDVFileWriter(outputs, path -> null);
    try (dvs) {
      for (DataFile file : day0) {
        for (long pos = 3; pos < file.recordCount(); pos += 40) {
          dvs.delete(file.location(), pos, table.spec(), file.partition());
        }
      }
    }
    List<DeleteFile> written = dvs.result().deleteFiles();
    assertThat(written).hasSize(2);
    assertThat(written).extracting(DeleteFile::location).containsOnly(written.get(0).location());
    RowDelta delta = table.newRowDelta();
    written.forEach(delta::addDeletes);
    delta.commit();
    Schema withLineage = MetadataColumns.schemaWithRowLineage(table.schema());
    Map<String, Long> before = LiveRows.multiset(table, withLineage);
    assertThat(LiveRows.count(before)).isEqualTo(4 * 5 * 200 - 2 * 5);
    int snapshotsBefore = snapshots(table).size();

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    Snapshot replace = newSnapshots(table, snapshotsBefore).get(0);
    assertThat(summaryLong(replace, SnapshotSummary.REMOVED_DVS_PROP)).isEqualTo(2);
    assertThat(result.removedDeleteFilesCount()).isEqualTo(2);
    assertThat(liveDeletes(table)).isEmpty();
    assertThat(result.verification().problems()).isEmpty();
    assertThat(result.verification().verified()).isTrue();
    assertThat(LiveRows.multiset(table, withLineage)).isEqualTo(before);
  }

  @Test
  void unpartitionedTable() {
    Table table = create(new Shape(4, 5, 200, 2, 2, 10, false));
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    assertThat(table.spec().isUnpartitioned()).isTrue();
    assertThat(liveDataFiles(table)).hasSize(20);

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups()).hasSize(1);
    assertThat(result.groups().get(0).partition()).isEqualTo("(unpartitioned)");
    assertThat(result.groups().get(0).inputFiles()).isEqualTo(20);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(liveDataFiles(table)).hasSize(1);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(20);
    assertThat(result.addedDataFilesCount()).isEqualTo(1);
    assertThat(result.removedDeleteFilesCount()).isEqualTo(2);
    assertThat(countDeletes(table, FileContent.POSITION_DELETES)).isZero();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void evolvedPartitionSpecRewritesOldSpecFilesIntoTheCurrentSpec() {
    Table table = create(SMALL);
    int oldSpecId = table.spec().specId();
    table.updateSpec().addField("region").commit();
    table.refresh();
    int newSpecId = table.spec().specId();
    assertThat(newSpecId).isNotEqualTo(oldSpecId);
    // five more files under the new spec, all in (day 0, region eu)
    long id = 1_000_000;
    for (int file = 0; file < 5; file++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        Record row = FragmentedTable.newOrder(id++, 0);
        row.setField("region", "eu");
        rows.add(row);
      }
      table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
    }
    table.refresh();
    assertThat(liveDataFiles(table)).filteredOn(f -> f.specId() == newSpecId).hasSize(5);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    // the old spec's 20 files form one group (Iceberg groups files of another spec together)
    assertThat(result.groups())
        .extracting(GroupOutcome::inputFiles)
        .containsExactlyInAnyOrder(20, 5);
    assertThat(result.groups())
        .extracting(GroupOutcome::partition)
        .containsExactlyInAnyOrder(
            "4 partitions from ordered_at_day=2026-06-01 to ordered_at_day=2026-06-04 (spec "
                + oldSpecId
                + ")",
            "ordered_at_day=2026-06-01/region=eu");
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    List<DataFile> after = liveDataFiles(table);
    assertThat(after).allSatisfy(f -> assertThat(f.specId()).isEqualTo(newSpecId));
    // 4 days x 4 regions from the old files, plus one file for the new files' group
    assertThat(after).hasSize(17);
    assertThat(result.addedDataFilesCount()).isEqualTo(17);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void evolvedSchemaKeepsRowsOfFilesWrittenBeforeTheNewColumn() {
    Table table = create(SMALL);
    long oldLiveRows = LiveRows.count(LiveRows.multiset(table));
    table.updateSchema().addColumn("channel", Types.StringType.get()).commit();
    table.refresh();
    Schema schema = table.schema();
    long id = 1_000_000;
    for (int day = 0; day < 4; day++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        Record order = FragmentedTable.newOrder(id++, day);
        GenericRecord row = GenericRecord.create(schema);
        for (Types.NestedField field : FragmentedTable.SCHEMA.columns()) {
          row.setField(field.name(), order.getField(field.name()));
        }
        row.setField("channel", "web-" + (i % 3));
        rows.add(row);
      }
      table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
    }
    Map<String, Long> before = LiveRows.multiset(table);
    assertThat(LiveRows.count(before)).isEqualTo(oldLiveRows + 80);
    int snapshotsBefore = snapshots(table).size();

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(result.groups()).hasSize(4);
    assertThat(result.groups()).allSatisfy(g -> assertThat(g.inputFiles()).isEqualTo(6));
    assertThat(liveDataFiles(table)).hasSize(4);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    Map<Boolean, Long> byChannelNull = channelNullCounts(table);
    assertThat(byChannelNull).containsEntry(true, oldLiveRows).containsEntry(false, 80L);
  }

  private static List<Long> rowIds(Table table) {
    table.refresh();
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table)
            .project(MetadataColumns.schemaWithRowLineage(table.schema()))
            .build()) {
      for (Record row : rows) {
        ids.add((Long) row.getField(MetadataColumns.ROW_ID.name()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  private static Map<Boolean, Long> channelNullCounts(Table table) {
    table.refresh();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).select("channel").build()) {
      List<Record> all = new ArrayList<>();
      rows.forEach(all::add);
      return all.stream()
          .collect(
              Collectors.partitioningBy(r -> r.getField("channel") == null, Collectors.counting()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
