package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * A group whose stored result is not JSON any more (cut short, overwritten): the committer cannot
 * know what that group wrote, but it can still check and commit the other groups. Before, the parse
 * error failed the whole job and nothing was committed.
 */
class EngineUnparseableResultTest extends EngineTestBase {
  private static final int CORRUPT_GROUP = 1;

  @Test
  void anUnparseableResultFailsItsGroupAloneAndTheOthersCommit() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicReference<PlanSummary> summary = new AtomicReference<>();
    AtomicReference<List<String>> corruptGroupOutputs = new AtomicReference<>();
    GroupInterceptor corruptOneResult =
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary plan) {
            summary.set(plan);
            // what the worker wrote, known to the test only: the committer will not be able to read
            // it
            corruptGroupOutputs.set(outputLocations(plan, CORRUPT_GROUP));
            String location = new WorkLocation(plan.workLocation()).groupResult(CORRUPT_GROUP);
            try (OutputStream out = access.fileIO().newOutputFile(location).createOrOverwrite()) {
              out.write("{\"job_id\": \"job-".getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        };

    JobResult result = run(job(), corruptOneResult);

    assertStatus(result, JobStatus.PARTIAL);
    GroupOutcome corrupt = outcome(result, CORRUPT_GROUP);
    assertThat(corrupt.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(corrupt.reason())
        .startsWith(
            "its stored result cannot be read: Cannot parse "
                + new WorkLocation(summary.get().workLocation()).groupResult(CORRUPT_GROUP));
    assertThat(corrupt.snapshotId()).isNull();
    assertThat(result.failedGroups()).isEqualTo(1);
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(15);
    assertThat(result.failedDataFilesCount()).isEqualTo(5);
    assertThat(result.verification().verified())
        .as(result.verification().problems().toString())
        .isTrue();

    // the other groups are committed, in one replace snapshot
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(result.snapshotIds()).containsExactly(replace.snapshotId());
    assertThat(result.groups())
        .filteredOn(g -> g.groupIndex() != CORRUPT_GROUP)
        .hasSize(3)
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.snapshotId()).isEqualTo(replace.snapshotId());
            });

    // no file of the corrupt group is live: its inputs are, none of its outputs (by location, or by
    // the
    // group's name prefix in any output of this job)
    List<String> live = liveDataPaths(table);
    List<String> corruptInputs =
        groupInputs(summary.get(), CORRUPT_GROUP).stream().map(DataFile::location).toList();
    assertThat(corruptGroupOutputs.get()).isNotEmpty();
    assertThat(live)
        .containsAll(corruptInputs)
        .doesNotContainAnyElementsOf(corruptGroupOutputs.get());
    assertThat(live)
        .filteredOn(p -> p.contains(result.jobId()))
        .hasSize(3)
        .noneMatch(
            p ->
                Path.of(p)
                    .getFileName()
                    .toString()
                    .startsWith(String.format("%05d-", CORRUPT_GROUP)));
    assertThat(LiveRows.multiset(table)).isEqualTo(before);

    // the job's result is stored, so a re-run returns it instead of committing again
    assertThat(
            new JobStore(access.fileIO())
                .readDocument(
                    new WorkLocation(summary.get().workLocation()).jobResult(), JobResult.class))
        .hasValueSatisfying(stored -> assertThat(stored.status()).isEqualTo(JobStatus.PARTIAL));
  }
}
