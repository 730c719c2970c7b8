package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.LiveRows;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * A job stopped before any commit deletes the outputs its workers wrote: the table was rolled back
 * past the pinned snapshot between the workers and the committer, so nothing of the job can be
 * committed, and its files would otherwise be orphans in {@code data/}.
 */
class EngineStoppedJobCleanupTest extends EngineTestBase {

  @Test
  void rollbackPastThePinnedSnapshotStopsTheJobAndDeletesItsOutputs() {
    Table table = create(SMALL);
    AtomicReference<PlanSummary> planned = new AtomicReference<>();
    AtomicReference<List<Path>> outputsBeforeCommit = new AtomicReference<>();
    AtomicLong rolledBackTo = new AtomicLong();
    GroupInterceptor rollback =
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary summary) {
            planned.set(summary);
            Table current = load();
            outputsBeforeCommit.set(filesNamedFor(current, summary.jobId()));
            long parent = current.currentSnapshot().parentId();
            current.manageSnapshots().rollbackTo(parent).commit();
            rolledBackTo.set(parent);
          }
        };

    assertThatThrownBy(() -> run(job(), rollback))
        .isInstanceOf(JobInvariantViolationException.class)
        .hasMessageContaining(
            "is no longer an ancestor of the current snapshot " + rolledBackTo.get());

    String jobId = planned.get().jobId();
    assertThat(outputsBeforeCommit.get()).hasSize(4); // one output per day partition was written
    Table after = load();
    assertThat(filesNamedFor(after, jobId)).isEmpty();
    // the table is as the rollback left it: no snapshot of the job, its rows unchanged
    assertThat(after.currentSnapshot().snapshotId()).isEqualTo(rolledBackTo.get());
    assertThat(snapshots(after)).noneMatch(s -> jobId.equals(s.summary().get("icecompact.job-id")));
    Snapshot current = after.currentSnapshot();
    assertThat(current.snapshotId()).isEqualTo(rolledBackTo.get());
    Map<String, Long> rows = LiveRows.multiset(after);
    assertThat(LiveRows.count(rows)).isPositive();
  }
}
