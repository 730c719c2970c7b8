package io.icecompact.cli.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LiveRows;
import io.icecompact.committer.care.DeleteCleanupStep;
import io.icecompact.core.job.JobStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * Seed 003's v2 case: a rewrite with use-starting-sequence-number leaves the partition-scoped position
 * deletes and the equality deletes of the files it replaced listed, applying by number to nothing.
 * {@link DeleteCleanupStep} removes them and only them: the deletes of a partition the rewrite left
 * alone still apply and stay, and no deleted row comes back.
 */
class DeleteCleanupStepTest extends CareTestBase {
  /** 4 day partitions (2026-06-01..04) of 5 files of 200 rows, v2, deletes added by the test. */
  static final FragmentedTable.Shape TABLE_SHAPE = new FragmentedTable.Shape(4, 5, 200, 2, 0, 0, true);

  @Test
  void removesTheDeletesARewriteLeftApplyingToNothingAndKeepsTheRest() {
    Table table = create(TABLE_SHAPE);
    addDeletesToEveryPartition(table);
    Map<String, Long> rows = LiveRows.multiset(load());
    assertThat(LiveRows.count(rows)).isEqualTo(4 * 5 * 200 - 4 * (2 * 20 + 3));
    assertThat(deleteFiles(load())).hasSize(8);

    // rewrite three of the four days (the planner's default: use-starting-sequence-number=true)
    assertThat(compact(Map.of("rewrite-all", "true"), "ordered_at < '2026-06-04'").status())
        .isEqualTo(JobStatus.COMMITTED);
    table = load();
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    List<DeleteFile> afterRewrite = deleteFiles(table);
    System.err.printf("delete cleanup: after a rewrite of 3 of 4 days, %d delete files listed%n", afterRewrite.size());
    assertThat(afterRewrite).as("seed 003: the rewrite leaves them listed").hasSize(8);

    DeleteCleanupStep.Report report = new DeleteCleanupStep().run(load());

    Table cleaned = load();
    assertThat(report.problems()).isEmpty();
    assertThat(report.deleteFilesBefore()).isEqualTo(8);
    assertThat(report.keptUnreadable()).as("the kept position delete was read, not kept for want of a reader").isZero();
    assertThat(report.removed().count()).isEqualTo(6);
    assertThat(report.deleteFilesAfter()).isEqualTo(2).isEqualTo(deleteFiles(cleaned).size());
    assertThat(report.positionDeleteFilesAfter()).isEqualTo(1);
    assertThat(report.equalityDeleteFilesAfter()).isEqualTo(1);
    assertThat(deleteFiles(cleaned))
        .as("the untouched day's deletes still apply and stay")
        .allSatisfy(delete -> assertThat(cleaned.specs().get(delete.specId()).partitionToPath(delete.partition()))
            .isEqualTo("ordered_at_day=2026-06-04"));
    assertThat(LiveRows.multiset(cleaned)).as("no deleted row is back").isEqualTo(rows);
    Snapshot cleanup = cleaned.currentSnapshot();
    assertThat(cleanup.snapshotId()).isEqualTo(report.snapshotId());
    assertThat(cleanup.summary()).containsEntry("removed-delete-files", "6").doesNotContainKey("added-data-files");
    System.err.printf("delete cleanup: %d -> %d delete files (%d removed, %d bytes)%n",
        report.deleteFilesBefore(), report.deleteFilesAfter(), report.removed().count(), report.removed().bytes());

    // the last day rewritten too: nothing applies any more, nothing stays
    assertThat(compact(Map.of("rewrite-all", "true"), null).status()).isEqualTo(JobStatus.COMMITTED);
    DeleteCleanupStep.Report full = new DeleteCleanupStep().run(load());
    assertThat(full.problems()).isEmpty();
    assertThat(deleteFiles(load())).isEmpty();
    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
    System.err.printf("delete cleanup after the full rewrite: %d -> %d delete files%n",
        full.deleteFilesBefore(), full.deleteFilesAfter());
  }

  @Test
  void aDataFileCommittedBetweenTheDecisionAndTheCommitFailsValidationAndTheStepDecidesAgain() {
    create(TABLE_SHAPE);
    addDeletesToEveryPartition(load());
    assertThat(compact(Map.of("rewrite-all", "true"), null).status()).isEqualTo(JobStatus.COMMITTED);
    Map<String, Long> rows = LiveRows.multiset(load());
    List<DeleteFile> listed = deleteFiles(load());
    java.util.concurrent.atomic.AtomicInteger appends = new java.util.concurrent.atomic.AtomicInteger();
    List<org.apache.iceberg.data.Record> batch = List.of(FragmentedTable.newOrder(5_000_000, 1));

    DeleteCleanupStep.Report report = new DeleteCleanupStep(3, table -> {
      if (appends.getAndIncrement() == 0) { // a streaming writer commits once, mid-cleanup
        Table writer = load();
        writer.newAppend().appendFile(FragmentedTable.dataFile(writer, batch)).commit();
      }
    }).run(load());

    assertThat(report.attempts()).isEqualTo(2);
    assertThat(report.problems()).isEmpty();
    assertThat(report.removed().count()).isEqualTo(listed.size());
    assertThat(deleteFiles(load())).isEmpty();
    assertThat(LiveRows.count(LiveRows.multiset(load()))).isEqualTo(LiveRows.count(rows) + 1);
  }

  @Test
  void keepsEveryDeleteThatStillApplies() {
    create(TABLE_SHAPE);
    addDeletesToEveryPartition(load());
    long snapshot = load().currentSnapshot().snapshotId();
    DeleteCleanupStep.Report report = new DeleteCleanupStep().run(load());
    assertThat(report.removed().count()).isZero();
    assertThat(report.keptUnreadable()).isZero();
    assertThat(report.snapshotId()).isNull();
    assertThat(load().currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  /**
   * In one commit (so at the sequence number a later rewrite starts from, as seed 003's last delete
   * round): per day, a partition-scoped position delete over two of its files (20 rows each) and an
   * equality delete of three ids of another file.
   */
  private static void addDeletesToEveryPartition(Table table) {
    Map<String, List<DataFile>> byDay = new LinkedHashMap<>();
    Map<String, Long> firstId = new LinkedHashMap<>();
    long id = 0;
    for (DataFile file : dataFilesInAppendOrder(table)) {
      String day = table.spec().partitionToPath(file.partition());
      byDay.computeIfAbsent(day, d -> new ArrayList<>()).add(file);
      firstId.put(file.location(), id);
      id += file.recordCount();
    }
    RowDelta delta = table.newRowDelta();
    for (List<DataFile> files : byDay.values()) {
      DeleteFile positions = partitionScopedPositionDelete(table, files.subList(0, 2));
      assertThat(ContentFileUtil.isFileScoped(positions)).isFalse();
      delta.addDeletes(positions);
      long first = firstId.get(files.get(2).location());
      delta.addDeletes(FragmentedTable.equalityDelete(table, files.get(2), first + 1, first + 2, first + 3));
    }
    delta.commit();
  }

  private static List<DataFile> dataFilesInAppendOrder(Table table) {
    List<DataFile> files = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      org.apache.iceberg.SnapshotChanges.builderFor(table).snapshot(snapshot).build().addedDataFiles().forEach(file -> files.add(file.copy()));
    }
    return files;
  }

  /** One position delete file deleting every 10th row of each of {@code targets} (one partition). */
  private static DeleteFile partitionScopedPositionDelete(Table table, List<DataFile> targets) {
    PartitionSpec spec = table.specs().get(targets.get(0).specId());
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 7, 7).format(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .build()
            .newPositionDeleteWriter(outputs.newOutputFile(spec, targets.get(0).partition()), spec, targets.get(0).partition());
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (DataFile target : targets.stream().sorted(Comparator.comparing(DataFile::location)).toList()) {
        for (long pos = 0; pos < target.recordCount(); pos += 10) {
          writer.write(delete.set(target.location(), pos));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result().deleteFiles().get(0);
  }

  /** The current snapshot's live delete files. */
  private static List<DeleteFile> deleteFiles(Table table) {
    List<DeleteFile> deletes = new ArrayList<>();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (CloseableIterable<DeleteFile> files = ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        files.forEach(file -> deletes.add(file.copy()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(deletes).allSatisfy(d -> assertThat(d.content()).isIn(FileContent.POSITION_DELETES, FileContent.EQUALITY_DELETES));
    return deletes;
  }
}
