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
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/** Failures the soak ({@code EmbeddedSoakTest}) found, replayed as plain tests. */
class EngineSoakRegressionTest extends EngineTestBase {

  /**
   * Soak seed 2145095666346546973, job 233: a full rewrite while another writer commits an equality
   * delete and then an append. Committed with the pinned sequence number, Iceberg's RewriteFiles
   * dropped the delete (older than every data file it kept; it ignores the outputs it adds) and the
   * deleted row came back. The committer now refuses that commit: the groups conflict, the delete
   * stays, and the next job compacts.
   */
  @Test
  void equalityDeleteThenAppendDuringAFullRewriteStaysApplied() {
    Table table = create(new FragmentedTable.Shape(3, 3, 100, 2, 2, 5, true));
    AtomicReference<Map<String, Long>> afterWrites = new AtomicReference<>();

    JobResult result =
        run(
            job(options("min-input-files", "2", "rewrite-all", "true")),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                Table writer = load();
                DataFile input = groupInputs(summary, 0).get(0);
                long orderId = firstLiveOrderOfDay(writer, input.partition().get(0, Integer.class));
                writer
                    .newRowDelta()
                    .addDeletes(FragmentedTable.equalityDelete(writer, input, orderId))
                    .commit();
                List<Record> rows = new ArrayList<>();
                for (long id = 5_000_000; id < 5_000_010; id++) {
                  rows.add(FragmentedTable.newOrder(id, 2));
                }
                writer.newAppend().appendFile(FragmentedTable.dataFile(writer, rows)).commit();
                afterWrites.set(LiveRows.multiset(writer));
              }
            });

    assertThat(LiveRows.multiset(table)).isEqualTo(afterWrites.get());
    // nothing failed: every group conflicted with the concurrent writes, and a rerun compacts
    assertStatus(result, JobStatus.CONTENDED);
    assertAllOutcomes(result, GroupOutcome.Status.CONFLICTED);
    assertThat(result.groups())
        .allSatisfy(
            g ->
                assertThat(g.reason())
                    .contains("would be dropped by Iceberg's RewriteFiles")
                    .contains("run the job again"));
    assertThat(filesNamedFor(table, result.jobId())).isEmpty();

    JobResult next = run(job(options("min-input-files", "2", "rewrite-all", "true")));

    assertStatus(next, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table)).isEqualTo(afterWrites.get());
  }

  private static long firstLiveOrderOfDay(Table table, int epochDay) {
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        if (((OffsetDateTime) row.getField("ordered_at")).toLocalDate().toEpochDay() == epochDay) {
          return (Long) row.getField("order_id");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new AssertionError("no live row in day " + epochDay);
  }
}
