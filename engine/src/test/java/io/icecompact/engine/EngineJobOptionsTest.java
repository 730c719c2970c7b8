package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.FragmentedTable.Shape;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/** Options that change what a job commits: thresholds and partial progress. */
class EngineJobOptionsTest extends EngineTestBase {

  @Test
  void minInputFilesAboveEveryPartitionIsNothingToDo() throws Exception {
    Table table = create(SMALL);
    int snapshotsBefore = snapshots(table).size();
    long currentBefore = table.currentSnapshot().snapshotId();

    JobResult result = run(job(options("min-input-files", "1000")));

    assertStatus(result, JobStatus.NOTHING_TO_DO);
    assertThat(result.reason())
        .contains("min-input-files=1000")
        .contains("among 20 data files in snapshot " + currentBefore)
        .contains("at most 5 in one partition");
    assertThat(result.snapshotIds()).isEmpty();
    assertThat(result.groups()).isEmpty();
    assertThat(newSnapshots(table, snapshotsBefore)).isEmpty();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(currentBefore);
    // the job's only file is its result, for `history`
    Path work = Path.of(table.location(), "_icecompact", result.jobId());
    assertThat(TestTables.filesUnder(work.toString())).containsOnlyKeys("result.json");
    assertThat(
            JobJson.fromBytes(
                    Files.readAllBytes(work.resolve("result.json")), JobResult.class, "result")
                .status())
        .isEqualTo(JobStatus.NOTHING_TO_DO);
  }

  @Test
  void alreadyCompactedTableIsNothingToDo() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    JobResult first = run(job());
    assertStatus(first, JobStatus.COMMITTED);
    int snapshotsAfterFirst = snapshots(table).size();

    JobResult second = run(job());

    assertStatus(second, JobStatus.NOTHING_TO_DO);
    assertThat(second.reason())
        .contains("min-input-files=5")
        .contains("at most 1 in one partition");
    assertThat(second.snapshotIds()).isEmpty();
    assertThat(snapshots(table)).hasSize(snapshotsAfterFirst);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void partialProgressCommitsAtMostMaxCommitsStampedSnapshots() {
    Table table = create(new Shape(6, 5, 200, 2, 2, 10, true));
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    JobResult result =
        run(job(options("partial-progress.enabled", "true", "partial-progress.max-commits", "3")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups()).hasSize(6);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(3);
    assertThat(result.snapshotIds())
        .containsExactlyElementsOf(added.stream().map(Snapshot::snapshotId).toList());
    for (int i = 0; i < 3; i++) {
      Snapshot snapshot = added.get(i);
      assertThat(snapshot.operation()).isEqualTo(DataOperations.REPLACE);
      assertThat(snapshot.summary())
          .containsEntry("icecompact.job-id", result.jobId())
          .containsEntry("icecompact.commit-index", Integer.toString(i))
          .containsEntry("icecompact.rewritten-groups", "2");
      assertThat(summaryLong(snapshot, SnapshotSummary.DELETED_FILES_PROP)).isEqualTo(10);
      assertThat(summaryLong(snapshot, SnapshotSummary.ADDED_FILES_PROP)).isEqualTo(2);
      long id = snapshot.snapshotId();
      assertThat(result.groups()).filteredOn(g -> id == g.snapshotId()).hasSize(2);
    }
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(30);
    assertThat(result.addedDataFilesCount()).isEqualTo(6);
    assertThat(result.verification().verified()).isTrue();
    assertThat(liveDataFiles(table)).hasSize(6);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }
}
