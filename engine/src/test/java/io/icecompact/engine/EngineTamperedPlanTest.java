package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupPlanDocument;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * The plan is an index plus one document per group, each checked by digest. A group document
 * changed after planning (here: one of its files left out; a committer trusting it would replace a
 * group whose files it no longer knows) is refused by the worker and by the committer, and only
 * that group fails, its files untouched. A changed index refuses the whole job.
 */
class EngineTamperedPlanTest extends EngineTestBase {
  private static final int TAMPERED_GROUP = 2;

  @Test
  void aGroupDocumentChangedBeforeItsWorkerRanFailsThatGroupAlone() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    AtomicReference<List<String>> tamperedInputs = new AtomicReference<>();
    GroupInterceptor tamperBeforeWorker =
        new GroupInterceptor() {
          @Override
          public void beforeGroup(GroupRequest request) {
            if (request.groupIndex() == TAMPERED_GROUP && tamperedInputs.get() == null) {
              tamperedInputs.set(
                  leaveOutFirstFile(request.jobId(), new WorkLocation(request.workLocation())));
            }
          }
        };

    JobResult result = run(job(), tamperBeforeWorker);

    assertStatus(result, JobStatus.PARTIAL);
    GroupOutcome tampered = outcome(result, TAMPERED_GROUP);
    assertThat(tampered.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(tampered.reason()).contains("refusing a changed plan");
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    assertThat(liveDataPaths(table)).containsAll(tamperedInputs.get());
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void aGroupDocumentChangedAfterItsWorkerRanIsRefusedByTheCommitterAndItsOutputsDeleted() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    AtomicReference<PlanSummary> summary = new AtomicReference<>();
    AtomicReference<List<String>> outputs = new AtomicReference<>();
    AtomicReference<List<String>> inputs = new AtomicReference<>();
    GroupInterceptor tamperBeforeCommit =
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary plan) {
            summary.set(plan);
            outputs.set(outputLocations(plan, TAMPERED_GROUP));
            inputs.set(groupInputs(plan, TAMPERED_GROUP).stream().map(DataFile::location).toList());
            leaveOutFirstFile(plan.jobId(), new WorkLocation(plan.workLocation()));
          }
        };

    JobResult result = run(job(), tamperBeforeCommit);

    assertStatus(result, JobStatus.PARTIAL);
    GroupOutcome tampered = outcome(result, TAMPERED_GROUP);
    assertThat(tampered.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(tampered.reason())
        .startsWith(
            "its planned files cannot be read: Group plan "
                + new WorkLocation(summary.get().workLocation()).groupPlan(TAMPERED_GROUP))
        .contains("refusing a changed plan");
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    List<String> live = liveDataPaths(table);
    assertThat(outputs.get()).isNotEmpty();
    assertThat(live).containsAll(inputs.get()).doesNotContainAnyElementsOf(outputs.get());
    assertThat(outputs.get())
        .allSatisfy(path -> assertThat(access.fileIO().newInputFile(path).exists()).isFalse());
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  @Test
  void aChangedPlanIndexRefusesTheWholeJobAndCommitsNothing() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    GroupInterceptor tamperIndex =
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary plan) {
            overwrite(
                plan.planLocation(), "{\"job_id\": \"" + plan.jobId() + "\", \"groups\": []}");
          }
        };

    assertThatThrownBy(() -> run(job(), tamperIndex))
        .isInstanceOf(PlanIntegrityException.class)
        .hasMessageContaining("refusing a changed plan");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  /**
   * Stores the tampered group's document again without its first file; returns the group's files.
   */
  private List<String> leaveOutFirstFile(String jobId, WorkLocation work) {
    Table table = load();
    String location = work.groupPlan(TAMPERED_GROUP);
    List<FileScanTask> tasks;
    try (var in = access.fileIO().newInputFile(location).newStream()) {
      tasks = GroupPlanDocument.tasks(in.readAllBytes(), jobId, TAMPERED_GROUP, location);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(tasks).hasSizeGreaterThan(1);
    byte[] changed =
        GroupPlanDocument.toBytes(
            jobId, TAMPERED_GROUP, tasks.subList(1, tasks.size()), table.specs());
    overwrite(location, new String(changed, StandardCharsets.UTF_8));
    return tasks.stream().map(task -> task.file().location()).toList();
  }

  private void overwrite(String location, String text) {
    try (OutputStream out = access.fileIO().newOutputFile(location).createOrOverwrite()) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
