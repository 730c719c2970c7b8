package io.icecompact.cli.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LiveRows;
import io.icecompact.care.DeleteCleanupStep;
import io.icecompact.core.job.JobStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * Seed 003's v2 case: a rewrite with use-starting-sequence-number leaves the partition-scoped position
 * deletes and the equality deletes of the files it replaced listed, applying by number to nothing.
 * {@link DeleteCleanupStep} decides from the manifests alone: it removes the equality deletes that apply to
 * nothing, keeps a partition-scoped position delete while a live file lies within its file_path bounds (the
 * rewrite's output does), and no deleted row comes back.
 */
class DeleteCleanupStepTest extends CareTestBase {
  /** 4 day partitions (2026-06-01..04) of 5 files of 200 rows, v2, deletes added by the test. */
  static final FragmentedTable.Shape TABLE_SHAPE = new FragmentedTable.Shape(4, 5, 200, 2, 0, 0, true);

  @Test
  void removesTheDeletesARewriteLeftApplyingToNothingAndKeepsTheRest() {
    Table table = create(TABLE_SHAPE);
    FragmentedTable.addPartitionScopedDeletes(table);
    Map<String, Long> rows = LiveRows.multiset(load());
    assertThat(LiveRows.count(rows)).isEqualTo(4 * 5 * 200 - 4 * (2 * 20 + 3));
    assertThat(deleteFiles(load())).hasSize(8)
        .filteredOn(d -> d.content() == FileContent.POSITION_DELETES).hasSize(4)
        .allSatisfy(d -> assertThat(ContentFileUtil.isFileScoped(d)).as("partition-scoped").isFalse());

    // rewrite three of the four days (the planner's default: use-starting-sequence-number=true)
    assertThat(compact(Map.of("rewrite-all", "true"), "ordered_at < '2026-06-04'").status())
        .isEqualTo(JobStatus.COMMITTED);
    table = load();
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    List<DeleteFile> afterRewrite = deleteFiles(table);
    System.err.printf("delete cleanup: after a rewrite of 3 of 4 days, %d delete files listed%n", afterRewrite.size());
    assertThat(afterRewrite).as("seed 003: the rewrite leaves them listed").hasSize(8);

    DeleteCleanupStep.Report report = new DeleteCleanupStep().run(load());

    // The equality deletes of the rewritten days go; their partition-scoped position deletes stay, kept by
    // their file_path bounds: the rewrite wrote its output in the same partition folder under names of the same
    // form (OutputFileFactory's <partition id>-<task>-<uuid>-<n>), which sort within the bounds, and the step
    // does not read delete files to see that they name only replaced files.
    Table cleaned = load();
    assertThat(report.problems()).isEmpty();
    assertThat(report.deleteFilesBefore()).isEqualTo(8);
    assertThat(report.keptByBounds()).as("every partition-scoped position delete").isEqualTo(4);
    assertThat(report.removed().count()).isEqualTo(3);
    assertThat(report.deleteFilesAfter()).isEqualTo(5).isEqualTo(deleteFiles(cleaned).size());
    assertThat(report.positionDeleteFilesAfter()).isEqualTo(4);
    assertThat(report.equalityDeleteFilesAfter()).isEqualTo(1);
    assertThat(deleteFiles(cleaned))
        .filteredOn(d -> d.content() == FileContent.EQUALITY_DELETES)
        .as("the untouched day's equality delete still applies and stays")
        .singleElement()
        .satisfies(delete -> assertThat(cleaned.specs().get(delete.specId()).partitionToPath(delete.partition()))
            .isEqualTo("ordered_at_day=2026-06-04"));
    assertThat(LiveRows.multiset(cleaned)).as("no deleted row is back").isEqualTo(rows);
    Snapshot cleanup = cleaned.currentSnapshot();
    assertThat(cleanup.snapshotId()).isEqualTo(report.snapshotId());
    assertThat(cleanup.summary()).containsEntry("removed-delete-files", "3").doesNotContainKey("added-data-files");
    System.err.printf("delete cleanup: %d -> %d delete files (%d removed, %d bytes, %d kept by bounds)%n",
        report.deleteFilesBefore(), report.deleteFilesAfter(), report.removed().count(), report.removed().bytes(),
        report.keptByBounds());

    // the last day rewritten too: no equality delete applies any more; the position deletes stay, by bounds
    assertThat(compact(Map.of("rewrite-all", "true"), null).status()).isEqualTo(JobStatus.COMMITTED);
    DeleteCleanupStep.Report full = new DeleteCleanupStep().run(load());
    assertThat(full.problems()).isEmpty();
    assertThat(full.keptByBounds()).isEqualTo(4);
    assertThat(deleteFiles(load())).hasSize(4).allSatisfy(d -> assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES));
    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
    System.err.printf("delete cleanup after the full rewrite: %d -> %d delete files%n",
        full.deleteFilesBefore(), full.deleteFilesAfter());
  }

  @Test
  void aDataFileCommittedBetweenTheDecisionAndTheCommitFailsValidationAndTheStepDecidesAgain() {
    create(TABLE_SHAPE);
    FragmentedTable.addPartitionScopedDeletes(load());
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
    // the equality deletes go; the partition-scoped position deletes stay, kept by their file_path bounds
    List<DeleteFile> positionDeletes =
        listed.stream().filter(d -> d.content() == FileContent.POSITION_DELETES).toList();
    assertThat(report.removed().count()).isEqualTo(listed.size() - positionDeletes.size()).isEqualTo(4);
    assertThat(deleteFiles(load())).extracting(DeleteFile::location)
        .containsExactlyInAnyOrderElementsOf(positionDeletes.stream().map(DeleteFile::location).toList());
    assertThat(LiveRows.count(LiveRows.multiset(load()))).isEqualTo(LiveRows.count(rows) + 1);
  }

  @Test
  void keepsEveryDeleteThatStillApplies() {
    create(TABLE_SHAPE);
    FragmentedTable.addPartitionScopedDeletes(load());
    long snapshot = load().currentSnapshot().snapshotId();
    DeleteCleanupStep.Report report = new DeleteCleanupStep().run(load());
    assertThat(report.removed().count()).isZero();
    assertThat(report.keptByBounds()).as("the partition-scoped position deletes").isEqualTo(4);
    assertThat(report.snapshotId()).isNull();
    assertThat(load().currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  /**
   * A partition-scoped position delete naming rows of two data files is decided by its file_path bounds: kept
   * while one of the two is live, removed once no live file lies within its bounds.
   */
  @Test
  void aPartitionScopedPositionDeleteStaysWhileAFileWithinItsBoundsIsLive() {
    create(TABLE_SHAPE);
    Table table = load();
    List<DataFile> firstDay = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> firstDay.add(task.file().copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // the two lowest locations of the first day: no other live file lies between them
    List<DataFile> named = firstDay.stream()
        .filter(f -> table.spec().partitionToPath(f.partition()).equals("ordered_at_day=2026-06-01"))
        .sorted(Comparator.comparing(DataFile::location)).limit(2).toList();
    assertThat(named).hasSize(2);
    DeleteFile delete = FragmentedTable.partitionScopedPositionDelete(table, named);
    assertThat(ContentFileUtil.isFileScoped(delete)).as("names two files").isFalse();
    table.newRowDelta().addDeletes(delete).commit();

    load().newDelete().deleteFile(named.get(0)).commit();
    Map<String, Long> oneLive = LiveRows.multiset(load());
    DeleteCleanupStep.Report kept = new DeleteCleanupStep().run(load());
    assertThat(kept.problems()).isEmpty();
    assertThat(kept.keptByBounds()).isEqualTo(1);
    assertThat(kept.snapshotId()).as("nothing committed").isNull();
    assertThat(deleteFiles(load())).extracting(DeleteFile::location).containsExactly(delete.location());
    assertThat(LiveRows.multiset(load())).as("the rows it deletes from the live file stay deleted").isEqualTo(oneLive);

    load().newDelete().deleteFile(named.get(1)).commit();
    Map<String, Long> noneLive = LiveRows.multiset(load());
    DeleteCleanupStep.Report removed = new DeleteCleanupStep().run(load());
    assertThat(removed.problems()).isEmpty();
    assertThat(removed.keptByBounds()).isZero();
    assertThat(removed.removed().sample()).containsExactly(delete.location());
    assertThat(deleteFiles(load())).isEmpty();
    assertThat(LiveRows.multiset(load())).isEqualTo(noneLive);
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
