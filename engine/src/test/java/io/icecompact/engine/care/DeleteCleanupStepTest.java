package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.care.DeleteCleanupStep;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * The v2 case docs/fleet.md ("Delete cleanup") measures: a rewrite with
 * use-starting-sequence-number leaves the partition-scoped position deletes and the equality
 * deletes of the files it replaced listed, applying by number to nothing. {@link
 * DeleteCleanupStep}, deciding from the manifests alone, removes them and only them: the deletes of
 * a partition the rewrite left alone still apply and stay, and no deleted row comes back.
 */
class DeleteCleanupStepTest extends CareTestBase {
  /** 4 day partitions (2026-06-01..04) of 5 files of 200 rows, v2, deletes added by the test. */
  static final FragmentedTable.Shape TABLE_SHAPE =
      new FragmentedTable.Shape(4, 5, 200, 2, 0, 0, true);

  @Test
  void removesTheDeletesARewriteLeftApplyingToNothingAndKeepsTheRest() {
    Table table = create(TABLE_SHAPE);
    FragmentedTable.addPartitionScopedDeletes(table);
    Map<String, Long> rows = LiveRows.multiset(load());
    assertThat(LiveRows.count(rows)).isEqualTo(4 * 5 * 200 - 4 * (2 * 20 + 3));
    assertThat(deleteFiles(load()))
        .hasSize(8)
        .filteredOn(d -> d.content() == FileContent.POSITION_DELETES)
        .hasSize(4)
        .allSatisfy(
            d -> assertThat(ContentFileUtil.isFileScoped(d)).as("partition-scoped").isFalse());

    // rewrite three of the four days (the planner's default: use-starting-sequence-number=true)
    assertThat(compact(Map.of("rewrite-all", "true"), "ordered_at < '2026-06-04'").status())
        .isEqualTo(JobStatus.COMMITTED);
    table = load();
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    List<DeleteFile> afterRewrite = deleteFiles(table);
    System.err.printf(
        "delete cleanup: after a rewrite of 3 of 4 days, %d delete files listed%n",
        afterRewrite.size());
    assertThat(afterRewrite)
        .as("as measured (docs/fleet.md): the rewrite leaves them listed")
        .hasSize(8);

    DeleteCleanupStep.Report report = new DeleteCleanupStep().run(load());

    // Every delete of the rewritten days goes: the equality deletes apply to nothing by number, and
    // the
    // position deletes (partition-scoped, without file_path bounds) can name no live file, every
    // live file of
    // their partitions being the rewrite's output, committed after them.
    Table cleaned = load();
    assertThat(report.problems()).isEmpty();
    assertThat(report.deleteFilesBefore()).isEqualTo(8);
    assertThat(report.keptMayApply()).as("the untouched day's position delete").isEqualTo(1);
    assertThat(report.removed().count()).isEqualTo(6);
    assertThat(report.deleteFilesAfter()).isEqualTo(2).isEqualTo(deleteFiles(cleaned).size());
    assertThat(report.positionDeleteFilesAfter()).isEqualTo(1);
    assertThat(report.equalityDeleteFilesAfter()).isEqualTo(1);
    assertThat(deleteFiles(cleaned))
        .as("the untouched day's deletes still apply and stay")
        .allSatisfy(
            delete ->
                assertThat(cleaned.specs().get(delete.specId()).partitionToPath(delete.partition()))
                    .isEqualTo("ordered_at_day=2026-06-04"));
    assertThat(LiveRows.multiset(cleaned)).as("no deleted row is back").isEqualTo(rows);
    Snapshot cleanup = cleaned.currentSnapshot();
    assertThat(cleanup.snapshotId()).isEqualTo(report.snapshotId());
    assertThat(cleanup.summary())
        .containsEntry("removed-delete-files", "6")
        .doesNotContainKey("added-data-files");
    System.err.printf(
        "delete cleanup: %d -> %d delete files (%d removed, %d bytes, %d kept: may apply)%n",
        report.deleteFilesBefore(),
        report.deleteFilesAfter(),
        report.removed().count(),
        report.removed().bytes(),
        report.keptMayApply());

    // the last day rewritten too: nothing applies any more, nothing stays
    assertThat(compact(Map.of("rewrite-all", "true"), null).status())
        .isEqualTo(JobStatus.COMMITTED);
    DeleteCleanupStep.Report full = new DeleteCleanupStep().run(load());
    assertThat(full.problems()).isEmpty();
    assertThat(deleteFiles(load())).isEmpty();
    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
    System.err.printf(
        "delete cleanup after the full rewrite: %d -> %d delete files%n",
        full.deleteFilesBefore(), full.deleteFilesAfter());
  }

  @Test
  void aDataFileCommittedBetweenTheDecisionAndTheCommitFailsValidationAndTheStepDecidesAgain() {
    create(TABLE_SHAPE);
    FragmentedTable.addPartitionScopedDeletes(load());
    assertThat(compact(Map.of("rewrite-all", "true"), null).status())
        .isEqualTo(JobStatus.COMMITTED);
    Map<String, Long> rows = LiveRows.multiset(load());
    List<DeleteFile> listed = deleteFiles(load());
    java.util.concurrent.atomic.AtomicInteger appends =
        new java.util.concurrent.atomic.AtomicInteger();
    List<org.apache.iceberg.data.Record> batch = List.of(FragmentedTable.newOrder(5_000_000, 1));

    DeleteCleanupStep.Report report =
        new DeleteCleanupStep(
                3,
                table -> {
                  if (appends.getAndIncrement()
                      == 0) { // a streaming writer commits once, mid-cleanup
                    Table writer = load();
                    writer.newAppend().appendFile(FragmentedTable.dataFile(writer, batch)).commit();
                  }
                })
            .run(load());

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
    assertThat(report.keptMayApply()).as("the partition-scoped position deletes").isEqualTo(4);
    assertThat(report.snapshotId()).isNull();
    assertThat(load().currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  /**
   * A partition-scoped position delete naming rows of two data files, with file_path bounds (as
   * Iceberg before 1.4 and other writers record them) and without (as Iceberg writes it now): kept
   * while one of the two is live; with bounds removed once no live file lies within them, without
   * once its partition has no live file.
   */
  @Test
  void aPartitionScopedPositionDeleteStaysWhileAFileItCouldNameIsLive() {
    create(TABLE_SHAPE);
    Table table = load();
    List<DataFile> firstDay = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> firstDay.add(task.file().copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    firstDay.removeIf(
        f -> !table.spec().partitionToPath(f.partition()).equals("ordered_at_day=2026-06-01"));
    firstDay.sort(Comparator.comparing(DataFile::location));
    assertThat(firstDay).hasSize(5);
    // the two lowest locations of the day: no other live file lies between them
    List<DataFile> named = firstDay.subList(0, 2);
    DeleteFile unbounded = FragmentedTable.partitionScopedPositionDelete(table, named);
    assertThat(ContentFileUtil.isFileScoped(unbounded)).as("names two files").isFalse();
    assertThat(
            unbounded.lowerBounds() == null || !unbounded.lowerBounds().containsKey(FILE_PATH_ID))
        .as("Iceberg keeps file_path bounds only for a delete of one file")
        .isTrue();
    DeleteFile bounded =
        withFilePathBounds(
            table,
            FragmentedTable.partitionScopedPositionDelete(table, named),
            named.get(0).location(),
            named.get(1).location());
    table.newRowDelta().addDeletes(unbounded).addDeletes(bounded).commit();

    load().newDelete().deleteFile(named.get(0)).commit();
    Map<String, Long> oneLive = LiveRows.multiset(load());
    DeleteCleanupStep.Report kept = new DeleteCleanupStep().run(load());
    assertThat(kept.problems()).isEmpty();
    assertThat(kept.keptMayApply()).isEqualTo(2);
    assertThat(kept.snapshotId()).as("nothing committed").isNull();
    assertThat(LiveRows.multiset(load()))
        .as("the rows they delete from the live file stay deleted")
        .isEqualTo(oneLive);

    load().newDelete().deleteFile(named.get(1)).commit();
    Map<String, Long> noneNamedLive = LiveRows.multiset(load());
    DeleteCleanupStep.Report boundsOut = new DeleteCleanupStep().run(load());
    assertThat(boundsOut.problems()).isEmpty();
    assertThat(boundsOut.removed().sample())
        .as("no live file within its bounds")
        .containsExactly(bounded.location());
    assertThat(boundsOut.keptMayApply()).as("its partition has live files").isEqualTo(1);
    assertThat(deleteFiles(load()))
        .extracting(DeleteFile::location)
        .containsExactly(unbounded.location());
    assertThat(LiveRows.multiset(load())).isEqualTo(noneNamedLive);

    org.apache.iceberg.DeleteFiles dropDay = load().newDelete();
    firstDay.subList(2, 5).forEach(dropDay::deleteFile);
    dropDay.commit();
    Map<String, Long> dayGone = LiveRows.multiset(load());
    DeleteCleanupStep.Report partitionOut = new DeleteCleanupStep().run(load());
    assertThat(partitionOut.problems()).isEmpty();
    assertThat(partitionOut.removed().sample())
        .as("its partition has no live file")
        .containsExactly(unbounded.location());
    assertThat(deleteFiles(load())).isEmpty();
    assertThat(LiveRows.multiset(load())).isEqualTo(dayGone);
  }

  private static final int FILE_PATH_ID = MetadataColumns.DELETE_FILE_PATH.fieldId();

  /** The delete with file_path bounds [lower, upper], as writers that keep them record it. */
  private static DeleteFile withFilePathBounds(
      Table table, DeleteFile delete, String lower, String upper) {
    return FileMetadata.deleteFileBuilder(table.specs().get(delete.specId()))
        .copy(delete)
        .withMetrics(
            new Metrics(
                delete.recordCount(),
                null,
                null,
                null,
                null,
                Map.of(FILE_PATH_ID, Conversions.toByteBuffer(Types.StringType.get(), lower)),
                Map.of(FILE_PATH_ID, Conversions.toByteBuffer(Types.StringType.get(), upper))))
        .build();
  }

  /** The current snapshot's live delete files. */
  private static List<DeleteFile> deleteFiles(Table table) {
    List<DeleteFile> deletes = new ArrayList<>();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (CloseableIterable<DeleteFile> files =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        files.forEach(file -> deletes.add(file.copy()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(deletes)
        .allSatisfy(
            d ->
                assertThat(d.content())
                    .isIn(FileContent.POSITION_DELETES, FileContent.EQUALITY_DELETES));
    return deletes;
  }
}
