package io.icecompact.cli.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LiveRows;
import io.icecompact.care.DeleteCleanupStep;
import io.icecompact.core.job.JobStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
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
 * {@link DeleteCleanupStep} removes them and only them: the deletes of a partition the rewrite left
 * alone still apply and stay, and no deleted row comes back.
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
    assertThat(report.removed().count()).isEqualTo(listed.size());
    assertThat(deleteFiles(load())).isEmpty();
    assertThat(LiveRows.count(LiveRows.multiset(load()))).isEqualTo(LiveRows.count(rows) + 1);
  }

  @Test
  void keepsEveryDeleteThatStillApplies() {
    create(TABLE_SHAPE);
    FragmentedTable.addPartitionScopedDeletes(load());
    long snapshot = load().currentSnapshot().snapshotId();
    DeleteCleanupStep.Report report = new DeleteCleanupStep().run(load());
    assertThat(report.removed().count()).isZero();
    assertThat(report.keptUnreadable()).isZero();
    assertThat(report.snapshotId()).isNull();
    assertThat(load().currentSnapshot().snapshotId()).isEqualTo(snapshot);
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
