package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Other writers commit between the job's workers and its committer. */
class EngineConcurrentWriterTest extends EngineTestBase {
  private static final int TARGET_GROUP = 1;
  private static final long DELETED_POSITION = 7;

  @Test
  void concurrentAppendToACompactedPartitionIsKept() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicReference<DataFile> appended = new AtomicReference<>();
    List<Record> appendedRows = new ArrayList<>();
    for (long id = 1_000_000; id < 1_000_010; id++) {
      appendedRows.add(FragmentedTable.newOrder(id, 0));
    }

    JobResult result =
        run(
            job(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                Table writer = load();
                DataFile file = FragmentedTable.dataFile(writer, appendedRows);
                writer.newAppend().appendFile(file).commit();
                appended.set(file);
              }
            });

    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    // the appended file's partition (day 0) was one of the compacted ones
    assertThat(result.groups())
        .hasSize(4)
        .extracting(GroupOutcome::partition)
        .contains("ordered_at_day=2026-06-01");
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added)
        .extracting(Snapshot::operation)
        .containsExactly(DataOperations.APPEND, DataOperations.REPLACE);
    assertThat(result.snapshotIds()).containsExactly(added.get(1).snapshotId());
    assertThat(liveDataPaths(table)).contains(appended.get().location()).hasSize(4 + 1);
    assertThat(filesNamedFor(table, result.jobId())).hasSize(4);

    Map<String, Long> expected = new TreeMap<>(before);
    Map<String, Long> after = LiveRows.multiset(table);
    assertThat(LiveRows.count(after)).isEqualTo(LiveRows.count(before) + appendedRows.size());
    Map<String, Long> withoutAppended = new TreeMap<>(after);
    for (Record row : appendedRows) {
      String text = rowText(row);
      assertThat(withoutAppended).containsKey(text);
      withoutAppended.computeIfPresent(text, (k, v) -> v == 1 ? null : v - 1);
    }
    assertThat(withoutAppended).isEqualTo(expected);
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void concurrentPositionDeleteConflictsOnlyItsGroup(int formatVersion) {
    Table table = create(new FragmentedTable.Shape(4, 5, 200, formatVersion, 2, 10, true));
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    ConcurrentDelete delete = new ConcurrentDelete();

    JobResult result = run(job(), delete);

    assertThat(LiveRows.count(delete.afterDelete)).isEqualTo(LiveRows.count(before) - 1);
    assertStatus(result, JobStatus.PARTIAL);
    GroupOutcome conflicted = outcome(result, TARGET_GROUP);
    assertThat(conflicted.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
    assertThat(conflicted.reason())
        .contains(delete.deleteFile.location())
        .contains(delete.target.location());
    assertThat(conflicted.snapshotId()).isNull();
    assertThat(result.conflictedGroups()).isEqualTo(1);
    assertThat(result.failedGroups()).isZero();
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    assertThat(result.failedDataFilesCount()).isEqualTo(conflicted.inputFiles());
    assertThat(result.reason())
        .contains("group " + TARGET_GROUP)
        .contains(delete.deleteFile.location());

    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(2);
    assertThat(added.get(0).operation()).isNotEqualTo(DataOperations.REPLACE);
    Snapshot replace = added.get(1);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(result.snapshotIds()).containsExactly(replace.snapshotId());
    assertThat(result.groups())
        .filteredOn(g -> g.groupIndex() != TARGET_GROUP)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.snapshotId()).isEqualTo(replace.snapshotId());
            });
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(15);
    assertThat(summaryLong(replace, "deleted-data-files")).isEqualTo(15);
    assertThat(result.verification().verified()).isTrue();

    // the conflicted group's inputs and the concurrent delete are still live; its outputs are gone
    Set<String> live = new HashSet<>(liveDataPaths(table));
    assertThat(live).containsAll(delete.inputs.stream().map(DataFile::location).toList());
    assertThat(liveDeletes(table).values())
        .extracting(DeleteFile::location)
        .contains(delete.deleteFile.location());
    assertThat(delete.conflictedOutputs).isNotEmpty();
    assertThat(delete.conflictedOutputs)
        .allSatisfy(p -> assertThat(Files.exists(Path.of(p))).isFalse());

    Map<String, Long> after = LiveRows.multiset(table);
    assertThat(after).isEqualTo(delete.afterDelete);
    assertThat(diff(before, after)).hasSize(1).containsValue(1L);
  }

  @Test
  void concurrentPositionDeleteWithAllowPartialFalseCommitsNothing() {
    Table table = create(SMALL);
    int snapshotsBefore = snapshots(table).size();
    ConcurrentDelete delete = new ConcurrentDelete();

    JobResult result = run(job(options("allow-partial", "false")), delete);

    // nothing failed: a concurrent change kept the job out, and a rerun compacts
    assertStatus(result, JobStatus.CONTENDED);
    assertThat(result.snapshotIds()).isEmpty();
    assertThat(result.rewrittenGroups()).isZero();
    assertThat(result.rewrittenDataFilesCount()).isZero();
    assertThat(outcome(result, TARGET_GROUP).status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
    assertThat(result.groups())
        .filteredOn(g -> g.groupIndex() != TARGET_GROUP)
        .hasSize(3)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.NOT_COMMITTED);
              assertThat(g.reason()).contains("allow-partial=false");
            });
    assertThat(result.failedDataFilesCount()).isEqualTo(20);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertThat(added.get(0).operation()).isNotEqualTo(DataOperations.REPLACE);
    assertThat(added.get(0).summary()).doesNotContainKey("icecompact.job-id");
    assertThat(filesNamedFor(table, result.jobId())).isEmpty();
    assertThat(LiveRows.multiset(table)).isEqualTo(delete.afterDelete);
  }

  @Test
  void competingRewriteOfOneGroupsFilesConflictsThatGroup() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicReference<List<DataFile>> replaced = new AtomicReference<>();
    AtomicReference<DataFile> replacement = new AtomicReference<>();

    JobResult result =
        run(
            job(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                Table writer = load();
                List<DataFile> inputs = groupInputs(summary, TARGET_GROUP);
                int day = inputs.get(0).partition().get(0, Integer.class);
                assertThat(inputs)
                    .allSatisfy(
                        f -> assertThat(f.partition().get(0, Integer.class)).isEqualTo(day));
                List<FileScanTask> partitionTasks =
                    liveTasks(writer).stream()
                        .filter(t -> t.file().partition().get(0, Integer.class) == day)
                        .toList();
                // the group is the whole partition, so the partition's live rows are the group's
                assertThat(partitionTasks)
                    .extracting(t -> t.file().location())
                    .containsExactlyInAnyOrderElementsOf(
                        inputs.stream().map(DataFile::location).toList());
                List<Record> rows = liveRowsOfDay(writer, day);
                DataFile file = FragmentedTable.dataFile(writer, rows);
                RewriteFiles rewrite =
                    writer.newRewrite().validateFromSnapshot(writer.currentSnapshot().snapshotId());
                for (FileScanTask task : partitionTasks) {
                  rewrite.deleteFile(task.file());
                  task.deletes().stream()
                      .filter(d -> ContentFileUtil.isFileScoped(d))
                      .forEach(rewrite::deleteFile);
                }
                rewrite.addFile(file).commit();
                replaced.set(inputs);
                replacement.set(file);
              }
            });

    assertStatus(result, JobStatus.PARTIAL);
    GroupOutcome conflicted = outcome(result, TARGET_GROUP);
    assertThat(conflicted.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
    assertThat(conflicted.reason()).contains("no longer live");
    assertThat(result.conflictedGroups()).isEqualTo(1);
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added)
        .extracting(Snapshot::operation)
        .containsExactly(DataOperations.REPLACE, DataOperations.REPLACE);
    assertThat(added.get(0).summary()).doesNotContainKey("icecompact.job-id");
    assertThat(added.get(1).summary()).containsEntry("icecompact.job-id", result.jobId());
    assertThat(result.snapshotIds()).containsExactly(added.get(1).snapshotId());
    List<String> live = liveDataPaths(table);
    assertThat(live).contains(replacement.get().location()).hasSize(4);
    assertThat(live)
        .doesNotContainAnyElementsOf(replaced.get().stream().map(DataFile::location).toList());
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void secondFullJobInsideBeforeCommitConflictsEveryGroup() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicReference<JobResult> competing = new AtomicReference<>();

    JobResult result =
        run(
            job(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                competing.set(run(job()));
              }
            });

    assertStatus(competing.get(), JobStatus.COMMITTED);
    // the competing compaction did the work: not a failure, and the reason says to rerun
    assertStatus(result, JobStatus.CONTENDED);
    assertThat(result.reason())
        .startsWith("No group was committed, none failed: 4 conflicted with concurrent commits");
    assertAllOutcomes(result, GroupOutcome.Status.CONFLICTED);
    assertThat(result.conflictedGroups()).isEqualTo(4);
    assertThat(result.snapshotIds()).isEmpty();
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertThat(added.get(0).summary()).containsEntry("icecompact.job-id", competing.get().jobId());
    assertThat(filesNamedFor(table, result.jobId())).isEmpty();
    assertThat(liveDataFiles(table)).hasSize(4);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @ParameterizedTest(name = "use-starting-sequence-number={0}")
  @ValueSource(booleans = {true, false})
  void concurrentEqualityDeleteStaysApplied(boolean useStartingSequenceNumber) {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicReference<DeleteFile> eqDelete = new AtomicReference<>();
    AtomicReference<Map<String, Long>> afterDelete = new AtomicReference<>();

    JobResult result =
        run(
            job(
                options(
                    "use-starting-sequence-number", Boolean.toString(useStartingSequenceNumber))),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                Table writer = load();
                DataFile input = groupInputs(summary, TARGET_GROUP).get(0);
                int day = input.partition().get(0, Integer.class);
                long orderId = (Long) liveRowsOfDay(writer, day).get(0).getField("order_id");
                DeleteFile delete = FragmentedTable.equalityDelete(writer, input, orderId);
                writer.newRowDelta().addDeletes(delete).commit();
                eqDelete.set(delete);
                afterDelete.set(LiveRows.multiset(writer));
              }
            });

    assertThat(LiveRows.count(afterDelete.get())).isEqualTo(LiveRows.count(before) - 1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added)
        .extracting(Snapshot::operation)
        .containsExactly(DataOperations.DELETE, DataOperations.REPLACE);
    assertThat(result.snapshotIds()).containsExactly(added.get(1).snapshotId());
    if (useStartingSequenceNumber) {
      // rewritten files keep the pinned sequence number, so the newer equality delete still applies
      assertStatus(result, JobStatus.COMMITTED);
      assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    } else {
      assertStatus(result, JobStatus.PARTIAL);
      GroupOutcome conflicted = outcome(result, TARGET_GROUP);
      assertThat(conflicted.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
      assertThat(conflicted.reason()).contains(eqDelete.get().location());
      assertThat(result.rewrittenGroups()).isEqualTo(3);
    }
    assertThat(LiveRows.multiset(table)).isEqualTo(afterDelete.get());
  }

  /** Commits a position delete of one row of one input file of {@link #TARGET_GROUP}. */
  private final class ConcurrentDelete implements GroupInterceptor {
    volatile List<DataFile> inputs;
    volatile DataFile target;
    volatile DeleteFile deleteFile;
    volatile Map<String, Long> afterDelete;
    volatile List<String> conflictedOutputs;

    @Override
    public void beforeCommit(PlanSummary summary) {
      Table writer = load();
      inputs = groupInputs(summary, TARGET_GROUP);
      // a file without position deletes yet: on v3 a second DV for one file would have to merge the
      // first
      target =
          groupTasks(summary, TARGET_GROUP).stream()
              .filter(
                  task ->
                      task.deletes().stream()
                          .noneMatch(d -> d.content() == FileContent.POSITION_DELETES))
              .map(task -> (DataFile) task.file())
              .findFirst()
              .orElseThrow();
      conflictedOutputs = outputLocations(summary, TARGET_GROUP);
      assertThat(conflictedOutputs)
          .isNotEmpty()
          .allSatisfy(p -> assertThat(Path.of(p)).isRegularFile());
      deleteFile = FragmentedTable.positionDelete(writer, target, DELETED_POSITION);
      writer.newRowDelta().addDeletes(deleteFile).commit();
      afterDelete = LiveRows.multiset(writer);
    }
  }

  private static List<Record> liveRowsOfDay(Table table, int epochDay) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        java.time.OffsetDateTime at = (java.time.OffsetDateTime) record.getField("ordered_at");
        if (at.toLocalDate().toEpochDay() == epochDay) {
          rows.add(record.copy());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Rows whose count differs, with before minus after. */
  private static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> diff = new TreeMap<>();
    Set<String> keys = new HashSet<>(before.keySet());
    keys.addAll(after.keySet());
    for (String key : keys) {
      long d = before.getOrDefault(key, 0L) - after.getOrDefault(key, 0L);
      if (d != 0) {
        diff.put(key, d);
      }
    }
    return diff;
  }

  /** The row as {@link LiveRows} prints it. */
  private static String rowText(Record row) {
    StringBuilder text = new StringBuilder("(");
    for (int i = 0; i < row.size(); i++) {
      text.append(i == 0 ? "" : ", ").append(row.get(i));
    }
    return text.append(')').toString();
  }
}
