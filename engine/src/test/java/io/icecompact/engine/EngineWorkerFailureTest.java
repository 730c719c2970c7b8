package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.GroupAttempts;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.LiveRows;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/** Workers that fail: transient failures are retried, application failures are not. */
class EngineWorkerFailureTest extends EngineTestBase {
  private static final int FAILING_GROUP = 2;

  /** Records every attempt per group and lets a test decide which attempt fails. */
  private abstract static class Recording implements GroupInterceptor {
    final Map<Integer, List<Integer>> attempts = new ConcurrentHashMap<>();
    final AtomicReference<PlanSummary> summary = new AtomicReference<>();

    @Override
    public void beforeGroup(GroupRequest request) {
      attempts
          .computeIfAbsent(request.groupIndex(), i -> new CopyOnWriteArrayList<>())
          .add(request.attempt());
      fail(request);
    }

    abstract void fail(GroupRequest request);

    @Override
    public void beforeCommit(PlanSummary plan) {
      summary.set(plan);
    }
  }

  @Test
  void transientFailureOnTheFirstAttemptIsRetriedAndEverythingCommits() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Recording interceptor =
        new Recording() {
          @Override
          void fail(GroupRequest request) {
            if (request.groupIndex() == FAILING_GROUP && request.attempt() == 1) {
              throw new TransientException("injected: connection reset", null);
            }
          }
        };

    JobResult result = run(job(), interceptor);

    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    assertThat(interceptor.attempts)
        .containsOnlyKeys(0, 1, 2, 3)
        .containsEntry(0, List.of(1))
        .containsEntry(1, List.of(1))
        .containsEntry(FAILING_GROUP, List.of(1, 2))
        .containsEntry(3, List.of(1));
    PlanSummary summary = interceptor.summary.get();
    assertThat(groupResult(summary, FAILING_GROUP).attempt()).isEqualTo(2);
    assertThat(outputLocations(summary, FAILING_GROUP))
        .isNotEmpty()
        .allSatisfy(
            p ->
                assertThat(Path.of(p).getFileName().toString())
                    .startsWith(String.format("%05d-2-%s", FAILING_GROUP, result.jobId())));
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertThat(added.get(0).operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(20);
    assertThat(result.failedDataFilesCount()).isZero();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  /**
   * A failure of the environment the rewrite did not type (a read timing out) is retried as the
   * deployed worker's handler has it retried; before, the embedded runner recorded it as the
   * group's failure at once.
   */
  @Test
  void anUntypedFailureOfTheEnvironmentIsRetriedAsOnAws() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    Recording interceptor =
        new Recording() {
          @Override
          void fail(GroupRequest request) {
            if (request.groupIndex() == FAILING_GROUP && request.attempt() < 3) {
              throw new java.io.UncheckedIOException(
                  new java.net.SocketTimeoutException("Read timed out"));
            }
          }
        };

    JobResult result = run(job(), interceptor);

    assertThat(interceptor.attempts).containsEntry(FAILING_GROUP, List.of(1, 2, 3));
    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void applicationFailureIsNotRetriedAndOnlyItsGroupFails() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Recording interceptor =
        new Recording() {
          @Override
          void fail(GroupRequest request) {
            if (request.groupIndex() == FAILING_GROUP) {
              throw new CorruptInputFileException("injected: bad footer in group " + FAILING_GROUP);
            }
          }
        };

    JobResult result = run(job(), interceptor);

    assertStatus(result, JobStatus.PARTIAL);
    assertThat(interceptor.attempts).containsEntry(FAILING_GROUP, List.of(1));
    GroupOutcome failed = outcome(result, FAILING_GROUP);
    assertThat(failed.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(failed.reason())
        .isEqualTo("CorruptInputFileException: injected: bad footer in group " + FAILING_GROUP);
    assertThat(failed.snapshotId()).isNull();
    assertThat(failed.inputFiles()).isEqualTo(5);
    assertThat(result.failedDataFilesCount()).isEqualTo(failed.inputFiles());
    assertThat(result.failedGroups()).isEqualTo(1);
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(15);
    assertThat(result.reason()).contains("CorruptInputFileException");
    // stored where the Map's Catch stores it, the committer's only source of failures
    assertThat(
            new JobStore(access.fileIO())
                .readGroupFailure(
                    new WorkLocation(interceptor.summary.get().workLocation()), FAILING_GROUP))
        .contains(
            new GroupFailure(
                FAILING_GROUP,
                "CorruptInputFileException",
                "injected: bad footer in group " + FAILING_GROUP));

    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(result.snapshotIds()).containsExactly(replace.snapshotId());
    assertThat(result.groups())
        .filteredOn(g -> g.groupIndex() != FAILING_GROUP)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.snapshotId()).isEqualTo(replace.snapshotId());
            });
    List<String> failedInputs =
        groupInputs(interceptor.summary.get(), FAILING_GROUP).stream()
            .map(DataFile::location)
            .toList();
    assertThat(liveDataPaths(table)).containsAll(failedInputs).hasSize(3 + 5);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void applicationFailureWithAllowPartialFalseCommitsNothingAndDeletesOutputs() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Recording interceptor =
        new Recording() {
          @Override
          void fail(GroupRequest request) {
            if (request.groupIndex() == FAILING_GROUP) {
              throw new CorruptInputFileException("injected: bad footer");
            }
          }
        };

    JobResult result = run(job(options("allow-partial", "false")), interceptor);

    assertStatus(result, JobStatus.FAILED);
    assertThat(outcome(result, FAILING_GROUP).status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(result.groups())
        .filteredOn(g -> g.groupIndex() != FAILING_GROUP)
        .hasSize(3)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.NOT_COMMITTED);
              assertThat(g.reason()).contains("allow-partial=false");
            });
    assertThat(result.snapshotIds()).isEmpty();
    assertThat(result.failedDataFilesCount()).isEqualTo(20);
    assertThat(newSnapshots(table, snapshotsBefore)).isEmpty();
    // the three groups that did rewrite had written outputs; none is left behind
    assertThat(outputLocations(interceptor.summary.get(), 0)).isNotEmpty();
    assertThat(filesNamedFor(table, result.jobId())).isEmpty();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void transientFailureOnEveryAttemptFailsTheGroupAfterMaxAttempts() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    Recording interceptor =
        new Recording() {
          @Override
          void fail(GroupRequest request) {
            if (request.groupIndex() == FAILING_GROUP) {
              throw new TransientException("injected: throttled", null);
            }
          }
        };

    JobResult result = run(job(), interceptor);

    assertThat(interceptor.attempts)
        .as("the first attempt and the Map's three retries")
        .containsEntry(FAILING_GROUP, List.of(1, 2, 3, GroupAttempts.MAX));
    assertStatus(result, JobStatus.PARTIAL);
    GroupOutcome failed = outcome(result, FAILING_GROUP);
    assertThat(failed.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(failed.reason()).isEqualTo("TransientException: injected: throttled");
    assertThat(result.failedDataFilesCount()).isEqualTo(5);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }
}
