package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.testkit.CommitFaultCatalog;
import io.icecompact.testkit.CommitFaultCatalog.Fault;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committer's {@code CommitStateUnknownException} handling, on a real JDBC catalog whose next
 * commit is made to lose its answer ({@link FaultInjectingJdbcCatalog}). The fault is armed right
 * before the committer runs, so the table's creation and the workers are untouched.
 */
class EngineCommitStateUnknownTest extends EngineTestBase {
  private static final String JOB_ID = "icecompact.job-id";
  private static final String COMMIT_INDEX = "icecompact.commit-index";
  private static final String REWRITTEN_GROUPS = "icecompact.rewritten-groups";

  @BeforeEach
  void useFaultInjectingCatalog() {
    access.close();
    CommitFaultCatalog.reset(warehouseKey());
    catalog = CommitFaultCatalog.wrap(LocalWarehouse.catalogProperties(warehouse));
    access = new TableAccess(catalog);
  }

  /** The warehouse as the catalog's {@code warehouse} property names it, which keys its faults. */
  private String warehouseKey() {
    return warehouse.toAbsolutePath().toString();
  }

  @AfterEach
  void forgetFaults() {
    CommitFaultCatalog.reset(warehouseKey());
  }

  /** One job run by the embedded runner, the fault armed between the workers and the committer. */
  private record Run(
      JobSpec spec, PlanSummary summary, JobResult result, int commitsBeforeCommitter) {
    CommitRequest commitRequest() {
      // what EmbeddedJobRunner hands the committer when no worker failed
      return CommitRequest.of(spec, summary);
    }
  }

  private Run runWithFault(Map<String, String> options, Fault fault, int passingCommits) {
    JobSpec spec = job(options).withJobIdIfAbsent();
    AtomicReference<PlanSummary> planned = new AtomicReference<>();
    int[] commitsBefore = new int[1];
    GroupInterceptor arm =
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary summary) {
            planned.set(summary);
            commitsBefore[0] = CommitFaultCatalog.realCommits(warehouseKey());
            CommitFaultCatalog.arm(warehouseKey(), fault, passingCommits);
          }
        };
    JobResult result = run(spec, arm);
    assertThat(planned.get()).as("the committer was reached").isNotNull();
    assertThat(CommitFaultCatalog.fired(warehouseKey())).as("injected faults").isEqualTo(1);
    assertThat(CommitFaultCatalog.armed(warehouseKey())).isFalse();
    return new Run(spec, planned.get(), result, commitsBefore[0]);
  }

  private JobResult commitAgain(CommitRequest request) {
    try (TableAccess stage = new TableAccess(catalog)) {
      return new JobCommitter(stage).commit(request);
    }
  }

  /** Output locations named in the stored results of all the job's groups, by group. */
  private List<List<String>> outputsByGroup(PlanSummary summary) {
    List<List<String>> outputs = new ArrayList<>();
    for (int index : summary.groupIndexes()) {
      assertThat(index).isEqualTo(outputs.size());
      List<String> locations = outputLocations(summary, index);
      assertThat(locations).as("outputs of group %d", index).isNotEmpty();
      outputs.add(locations);
    }
    return outputs;
  }

  private static List<String> flat(List<List<String>> outputs) {
    return outputs.stream().flatMap(List::stream).toList();
  }

  private static void assertAllExist(List<String> locations) {
    assertThat(locations).isNotEmpty().allSatisfy(p -> assertThat(Path.of(p)).isRegularFile());
  }

  /** The job's stamped snapshots among {@code snapshots}, checked to be replace snapshots. */
  private static List<Snapshot> stamped(List<Snapshot> snapshots, String jobId) {
    List<Snapshot> stamped =
        snapshots.stream().filter(s -> jobId.equals(s.summary().get(JOB_ID))).toList();
    assertThat(stamped)
        .allSatisfy(s -> assertThat(s.operation()).isEqualTo(DataOperations.REPLACE));
    return stamped;
  }

  private static List<Integer> commitIndexes(List<Snapshot> snapshots) {
    return snapshots.stream().map(s -> Integer.parseInt(s.summary().get(COMMIT_INDEX))).toList();
  }

  @Test
  void commitThatLandedButLostItsAnswerIsFoundByItsStamp() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    Run job = runWithFault(Map.of(), Fault.LANDED_ANSWER_LOST, 0);

    assertStatus(job.result(), JobStatus.COMMITTED);
    assertThat(CommitFaultCatalog.realCommits(warehouseKey()) - job.commitsBeforeCommitter())
        .as("commits that reached the catalog")
        .isEqualTo(1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(replace.summary())
        .containsEntry(JOB_ID, job.spec().jobId())
        .containsEntry(COMMIT_INDEX, "0");
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(replace.snapshotId());
    assertThat(job.result().snapshotIds()).containsExactly(replace.snapshotId());
    assertThat(job.result().groups())
        .hasSize(4)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.snapshotId()).isEqualTo(replace.snapshotId());
            });
    assertThat(job.result().rewrittenDataFilesCount()).isEqualTo(20);
    assertThat(job.result().verification().verified()).isTrue();
    // outputs were not taken for uncommitted ones and deleted: they are the table now
    List<String> outputs = flat(outputsByGroup(job.summary()));
    assertAllExist(outputs);
    assertThat(liveDataPaths(table)).containsExactlyInAnyOrderElementsOf(outputs);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void commitThatDidNotLandEndsUnknownDeletesNothingAndARerunCommitsOnce() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    long currentBefore = table.currentSnapshot().snapshotId();
    List<String> liveBefore = liveDataPaths(table);

    Run job = runWithFault(Map.of(), Fault.DID_NOT_LAND, 0);

    assertStatus(job.result(), JobStatus.UNKNOWN);
    assertThat(job.result().reason())
        .contains("Re-run the committer")
        .contains("no file was deleted");
    assertThat(job.result().snapshotIds()).isEmpty();
    assertThat(job.result().rewrittenGroups()).isZero();
    assertThat(job.result().groups())
        .hasSize(4)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.NOT_COMMITTED);
              assertThat(g.reason()).startsWith("commit state unknown");
              assertThat(g.snapshotId()).isNull();
            });
    assertThat(CommitFaultCatalog.realCommits(warehouseKey()))
        .isEqualTo(job.commitsBeforeCommitter());
    // no file was deleted, and the table is as it was
    List<List<String>> outputsByGroup = outputsByGroup(job.summary());
    List<String> outputs = flat(outputsByGroup);
    assertThat(outputs).hasSize(4);
    assertAllExist(outputs);
    assertAllExist(liveBefore);
    assertThat(newSnapshots(table, snapshotsBefore)).isEmpty();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(currentBefore);
    assertThat(liveDataPaths(table)).containsExactlyInAnyOrderElementsOf(liveBefore);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);

    // the operator re-runs the committer for the same job, the catalog healthy again
    assertThat(CommitFaultCatalog.armed(warehouseKey())).isFalse();
    JobResult second = commitAgain(job.commitRequest());

    assertStatus(second, JobStatus.COMMITTED);
    assertThat(CommitFaultCatalog.realCommits(warehouseKey()) - job.commitsBeforeCommitter())
        .isEqualTo(1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(replace.summary()).containsEntry(JOB_ID, job.spec().jobId());
    // index 0 went to the attempt whose outcome was unknown; it is never reused
    assertThat(replace.summary()).containsEntry(COMMIT_INDEX, "1");
    assertThat(second.snapshotIds()).containsExactly(replace.snapshotId());
    assertThat(second.groups())
        .hasSize(4)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.snapshotId()).isEqualTo(replace.snapshotId());
            });
    assertThat(second.rewrittenDataFilesCount()).isEqualTo(20);
    assertThat(second.verification().verified()).isTrue();
    assertAllExist(outputs);
    assertThat(liveDataPaths(table)).containsExactlyInAnyOrderElementsOf(outputs);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);

    JobResult third = commitAgain(job.commitRequest());

    assertThat(third).isEqualTo(second);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(liveDataPaths(table)).containsExactlyInAnyOrderElementsOf(outputs);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  /**
   * Partial progress, max 3 commits: the second commit does not land. The first stays, the job is
   * UNKNOWN, nothing is deleted; a re-run commits the rest under new commit indexes (the lost one
   * is never reused), never the first batch again, and never more commits in all than max-commits
   * allows.
   */
  @ParameterizedTest(name = "{0} groups")
  @ValueSource(ints = {6, 8})
  void secondPartialProgressCommitThatDidNotLandIsCommittedByARerun(int groups) {
    int maxCommits = 3;
    Table table = create(new FragmentedTable.Shape(groups, 5, 200, 2, 2, 10, true));
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    List<String> liveBefore = liveDataPaths(table);
    Map<String, String> options =
        options(
            "partial-progress.enabled",
            "true",
            "partial-progress.max-commits",
            Integer.toString(maxCommits));

    Run job = runWithFault(options, Fault.DID_NOT_LAND, 1);

    assertThat(job.summary().groupCount()).isEqualTo(groups);
    assertStatus(job.result(), JobStatus.UNKNOWN);
    assertThat(job.result().reason()).contains("Re-run the committer");
    assertThat(CommitFaultCatalog.realCommits(warehouseKey()) - job.commitsBeforeCommitter())
        .isEqualTo(1);
    List<Snapshot> firstRun = stamped(newSnapshots(table, snapshotsBefore), job.spec().jobId());
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(firstRun).hasSize(1);
    Snapshot first = firstRun.get(0);
    assertThat(commitIndexes(firstRun)).containsExactly(0);
    assertThat(job.result().snapshotIds()).containsExactly(first.snapshotId());
    Set<Integer> firstBatch = new TreeSet<>();
    for (GroupOutcome g : job.result().groups()) {
      if (g.status() == GroupOutcome.Status.REWRITTEN) {
        assertThat(g.snapshotId()).isEqualTo(first.snapshotId());
        firstBatch.add(g.groupIndex());
      } else {
        assertThat(g.status()).isEqualTo(GroupOutcome.Status.NOT_COMMITTED);
        assertThat(g.snapshotId()).isNull();
      }
    }
    int perBatch = (groups + maxCommits - 1) / maxCommits;
    assertThat(firstBatch).hasSize(perBatch);
    assertThat(Integer.parseInt(first.summary().get(REWRITTEN_GROUPS))).isEqualTo(perBatch);
    assertThat(job.result().rewrittenGroups()).isEqualTo(perBatch);
    // nothing was deleted: every group's outputs exist, the first batch's are live, the rest are
    // not
    List<List<String>> outputsByGroup = outputsByGroup(job.summary());
    List<String> outputs = flat(outputsByGroup);
    assertAllExist(outputs);
    List<String> live = liveDataPaths(table);
    for (int index = 0; index < groups; index++) {
      if (firstBatch.contains(index)) {
        assertThat(live).containsAll(outputsByGroup.get(index));
      } else {
        assertThat(live).doesNotContainAnyElementsOf(outputsByGroup.get(index));
      }
    }
    assertThat(live.size()).isEqualTo(liveBefore.size() - perBatch * 5 + perBatch);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(first.snapshotId());
    assertThat(LiveRows.multiset(table)).isEqualTo(before);

    JobResult second = commitAgain(job.commitRequest());

    assertStatus(second, JobStatus.COMMITTED);
    List<Snapshot> all = newSnapshots(table, snapshotsBefore);
    List<Snapshot> jobSnapshots = stamped(all, job.spec().jobId());
    assertThat(jobSnapshots).hasSameSizeAs(all);
    assertThat(jobSnapshots.size()).as("commits of the job").isLessThanOrEqualTo(maxCommits);
    List<Integer> indexes = commitIndexes(jobSnapshots);
    assertThat(indexes).as("commit indexes, oldest first").doesNotHaveDuplicates().isSorted();
    assertThat(indexes.get(0)).isZero();
    // the index of the attempt whose outcome was unknown is never reused
    assertThat(indexes).doesNotContain(1);
    assertThat(jobSnapshots.get(0).snapshotId())
        .as("the first batch's snapshot")
        .isEqualTo(first.snapshotId());
    assertThat(
            jobSnapshots.stream()
                .mapToInt(s -> Integer.parseInt(s.summary().get(REWRITTEN_GROUPS)))
                .sum())
        .as("groups over all the job's snapshots")
        .isEqualTo(groups);
    assertThat(second.snapshotIds())
        .containsExactlyInAnyOrderElementsOf(
            jobSnapshots.stream().map(Snapshot::snapshotId).toList());
    assertThat(second.groups())
        .hasSize(groups)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              if (firstBatch.contains(g.groupIndex())) {
                assertThat(g.snapshotId()).isEqualTo(first.snapshotId());
              } else {
                assertThat(g.snapshotId()).isNotEqualTo(first.snapshotId());
              }
            });
    assertThat(second.rewrittenDataFilesCount()).isEqualTo(groups * 5);
    assertThat(second.verification().verified()).isTrue();
    assertAllExist(outputs);
    assertThat(liveDataPaths(table)).containsExactlyInAnyOrderElementsOf(outputs);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);

    JobResult third = commitAgain(job.commitRequest());

    assertThat(third).isEqualTo(second);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSameSizeAs(all);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }
}
