package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/** The committer is run again for a job whose commit already succeeded. */
class EngineCommitterRerunTest extends EngineTestBase {

  /** The stages of one job, run directly as the serverless pipeline runs them. */
  private record Staged(
      JobSpec spec, PlanSummary summary, CommitRequest request, JobResult first) {}

  private Staged planRewriteCommit() {
    return planRewriteCommit(Map.of(), 4);
  }

  private Staged planRewriteCommit(Map<String, String> options, int groups) {
    JobSpec spec = job(options).withJobIdIfAbsent();
    try (TableAccess stage = new TableAccess(catalog)) {
      PlanSummary summary = new RewritePlanner(stage).plan(spec);
      assertThat(summary.planned()).isTrue();
      assertThat(summary.groupCount()).isEqualTo(groups);
      for (int index : summary.groupIndexes()) {
        GroupStatus status =
            new GroupRewriter(stage).rewrite(GroupRequest.of(spec, summary, index, 1));
        assertThat(status.outputFiles()).isEqualTo(1);
      }
      CommitRequest request = CommitRequest.of(spec, summary);
      JobResult first = new JobCommitter(stage).commit(request);
      return new Staged(spec, summary, request, first);
    }
  }

  private JobResult commitAgain(CommitRequest request) {
    try (TableAccess stage = new TableAccess(catalog)) {
      return new JobCommitter(stage).commit(request);
    }
  }

  @Test
  void rerunAfterAFinishedCommitReturnsTheSameResultWithoutASecondSnapshot() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    Staged job = planRewriteCommit();
    assertStatus(job.first(), JobStatus.COMMITTED);
    assertThat(job.first().snapshotIds()).hasSize(1);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);

    JobResult second = commitAgain(job.request());

    assertThat(second.status()).isEqualTo(job.first().status());
    assertThat(second.snapshotIds()).isEqualTo(job.first().snapshotIds());
    assertThat(second.groups()).isEqualTo(job.first().groups());
    assertThat(second.rewrittenDataFilesCount()).isEqualTo(job.first().rewrittenDataFilesCount());
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(liveDataFiles(table)).hasSize(4);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void rerunAfterACrashBetweenCommitAndResultFindsTheCommitByItsStamp() throws Exception {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    Staged job = planRewriteCommit();
    assertStatus(job.first(), JobStatus.COMMITTED);
    long committed = job.first().snapshotIds().get(0);
    // the committer "crashed" before storing its result, and another writer committed since
    Path stored = Path.of(new WorkLocation(job.summary().workLocation()).jobResult());
    assertThat(stored).isRegularFile();
    Files.delete(stored);
    Table writer = load();
    DataFile appended =
        FragmentedTable.dataFile(writer, List.of(FragmentedTable.newOrder(5_000_000, 1)));
    writer.newAppend().appendFile(appended).commit();
    Map<String, Long> expected = LiveRows.multiset(table);
    assertThat(LiveRows.count(expected)).isEqualTo(LiveRows.count(before) + 1);

    JobResult second = commitAgain(job.request());

    assertStatus(second, JobStatus.COMMITTED);
    assertThat(second.snapshotIds()).containsExactly(committed);
    assertThat(second.rewrittenDataFilesCount()).isEqualTo(job.first().rewrittenDataFilesCount());
    assertThat(second.addedDataFilesCount()).isEqualTo(job.first().addedDataFilesCount());
    assertThat(second.removedDeleteFilesCount()).isEqualTo(job.first().removedDeleteFilesCount());
    assertThat(second.verification().verified()).isTrue();
    assertThat(second.groups())
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.snapshotId()).isEqualTo(committed);
            });
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added)
        .extracting(Snapshot::operation)
        .containsExactly(DataOperations.REPLACE, DataOperations.APPEND);
    // the recovered commit's outputs were not mistaken for uncommitted ones and deleted
    assertThat(liveDataPaths(table))
        .hasSize(5)
        .allSatisfy(p -> assertThat(Path.of(p)).isRegularFile());
    assertThat(LiveRows.multiset(table)).isEqualTo(expected);
    assertThat(stored).isRegularFile();
  }

  @Test
  void rerunAfterACrashFindsEveryPartialProgressCommit() throws Exception {
    Table table = create(new FragmentedTable.Shape(6, 5, 200, 2, 2, 10, true));
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Staged job =
        planRewriteCommit(
            options("partial-progress.enabled", "true", "partial-progress.max-commits", "3"), 6);
    assertStatus(job.first(), JobStatus.COMMITTED);
    assertThat(job.first().snapshotIds()).hasSize(3);
    Files.delete(Path.of(new WorkLocation(job.summary().workLocation()).jobResult()));

    JobResult second = commitAgain(job.request());

    assertStatus(second, JobStatus.COMMITTED);
    assertThat(second.snapshotIds()).containsExactlyInAnyOrderElementsOf(job.first().snapshotIds());
    assertThat(second.groups()).isEqualTo(job.first().groups());
    assertThat(second.rewrittenDataFilesCount()).isEqualTo(30);
    assertThat(second.verification().verified()).isTrue();
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(3);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }
}
