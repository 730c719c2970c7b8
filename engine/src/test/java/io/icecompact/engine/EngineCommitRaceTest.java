package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.fixtures.StreamingWriter;
import io.icecompact.testkit.CommitFaultCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A streaming writer (Flink's upsert sink, {@link FlinkUpsertTable}) commits every few hundred
 * milliseconds on its own thread while a job compacts the table: the job commits while the writer
 * goes on, every row the writer meant is live, and the job's snapshot holds exactly its parent's
 * rows. A job that loses every race until its commit time runs out says so ({@code CONTENDED}),
 * apart from a failure.
 */
class EngineCommitRaceTest extends EngineTestBase {
  /**
   * The committer starts {@code commitsBeforeCommitter} writer commits after the workers: the job
   * races a table that moved far from its pinned snapshot, and commits while the writer goes on.
   */
  @ParameterizedTest(
      name = "{0} catalog, a writer committing every {1} ms, {2} commits before the committer")
  @CsvSource({"jdbc, 300, 8", "hadoop, 300, 8", "jdbc, 100, 30"})
  void commitsWhileAFastWriterKeepsCommitting(
      String catalogType, long everyMillis, int commitsBeforeCommitter) throws Exception {
    Map<String, String> catalogProperties =
        "hadoop".equals(catalogType)
            ? Map.of("type", "hadoop", "warehouse", warehouse.resolve("hadoop").toString())
            : LocalWarehouse.catalogProperties(warehouse);
    try (TableAccess writerAccess = new TableAccess(catalogProperties)) {
      FlinkUpsertTable cdc =
          FlinkUpsertTable.create(
              writerAccess.catalog(),
              TableIdentifier.parse(TABLE),
              FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false));
      Table table = cdc.table();
      JobSpec spec = new JobSpec(null, TABLE, catalogProperties, Map.of(), null, null, null);
      JobResult result;
      int writerCommitsAfterJob;
      long jobStarted;
      long jobEnded;
      try (StreamingWriter writer = new StreamingWriter(cdc, everyMillis, 20).start()) {
        writer.awaitCommits(2);
        jobStarted = System.nanoTime();
        result =
            new EmbeddedJobRunner(
                    2,
                    ProgressListener.NONE,
                    new GroupInterceptor() {
                      @Override
                      public void beforeCommit(PlanSummary summary) {
                        try {
                          writer.awaitCommits(writer.commits() + commitsBeforeCommitter);
                        } catch (InterruptedException e) {
                          throw new IllegalStateException(e);
                        }
                      }
                    })
                .run(spec);
        jobEnded = System.nanoTime();
        writerCommitsAfterJob = writer.commits();
        writer.awaitCommits(writerCommitsAfterJob + 2);
        assertThat(writer.commitsBetween(jobStarted, jobEnded))
            .as("the writer's commits during the job")
            .isGreaterThanOrEqualTo(commitsBeforeCommitter);
      }

      assertStatus(result, JobStatus.COMMITTED);
      assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
      assertThat(result.snapshotIds()).hasSize(1);
      assertThat(result.commit().each())
          .isNotEmpty()
          .last()
          .extracting(CommitAttempt::outcome)
          .isEqualTo(CommitAttempt.Outcome.WON);
      table.refresh();
      Snapshot compacted = table.snapshot(result.snapshotIds().get(0));
      assertThat(compacted.operation()).isEqualTo("replace");
      assertThat(table.currentSnapshot().sequenceNumber())
          .as("the writer committed after the job: the job did not wait for it to stop")
          .isGreaterThan(compacted.sequenceNumber());
      assertThat(multisetAt(table, compacted.snapshotId()))
          .as("the job's snapshot holds its parent's rows")
          .isEqualTo(multisetAt(table, compacted.parentId()));
      assertThat(LiveRows.multiset(table))
          .as("every row the writer meant, no other")
          .isEqualTo(LiveRows.multiset(cdc.expectedLiveRows(), table));
    }
  }

  /**
   * Every attempt loses the swap until the commit time runs out: CONTENDED, not FAILED, and nothing
   * left.
   */
  @Test
  void aJobThatOnlyLostRacesSaysSoAndLeavesTheTableAsItWas() throws IOException {
    String key = useCommitFaultCatalog();
    try {
      Table table = create(SMALL);
      table
          .updateProperties()
          .set(TableProperties.COMMIT_TOTAL_RETRY_TIME_MS, "1500")
          .set(TableProperties.COMMIT_NUM_RETRIES, "1")
          .commit();
      Map<String, Long> before = LiveRows.multiset(table);
      long snapshot = table.currentSnapshot().snapshotId();

      JobResult result =
          run(
              job(),
              new GroupInterceptor() {
                @Override
                public void beforeCommit(PlanSummary summary) {
                  CommitFaultCatalog.arm(
                      key, CommitFaultCatalog.Fault.LOST_RACE, 0, Integer.MAX_VALUE);
                }
              });
      CommitFaultCatalog.reset(key);

      assertThat(result.status()).isEqualTo(JobStatus.CONTENDED);
      assertThat(result.reason())
          .startsWith(
              "No group was committed, none failed: 0 conflicted with concurrent"
                  + " commits and 4 lost the commit race to other writers; run the job again.");
      assertAllOutcomes(result, GroupOutcome.Status.CONTENDED);
      assertThat(result.groups())
          .allSatisfy(
              group ->
                  assertThat(group.reason())
                      .startsWith("lost the commit race: ")
                      .contains(
                          "until the commit time ran out (commit.retry.total-timeout-ms=1500); run the job again."));
      assertThat(result.commit().attempts())
          .as("attempts in 1.5 s, ~100 ms apart")
          .isGreaterThan(3);
      assertThat(result.commit().lost()).isEqualTo(result.commit().attempts());
      assertThat(result.failedGroups()).isZero();
      table.refresh();
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(LiveRows.multiset(table)).isEqualTo(before);
      assertThat(filesNamedFor(table, result.jobId())).as("the outputs were deleted").isEmpty();
    } finally {
      CommitFaultCatalog.reset(key);
    }
  }

  /**
   * Rounds that lost are retried: seven lost swaps, then the job commits, and its figures say so.
   */
  @Test
  void lostRoundsAreRetriedAndCounted() {
    String key = useCommitFaultCatalog();
    try {
      Table table = create(SMALL);
      Map<String, Long> before = LiveRows.multiset(table);

      JobResult result =
          run(
              job(),
              new GroupInterceptor() {
                @Override
                public void beforeCommit(PlanSummary summary) {
                  CommitFaultCatalog.arm(key, CommitFaultCatalog.Fault.LOST_RACE, 0, 7);
                }
              });

      assertStatus(result, JobStatus.COMMITTED);
      assertThat(result.commit().attempts()).isEqualTo(8);
      assertThat(result.commit().lost()).isEqualTo(7);
      assertThat(result.commit().each())
          .extracting(CommitAttempt::attempt)
          .containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
      assertThat(LiveRows.multiset(table)).isEqualTo(before);
    } finally {
      CommitFaultCatalog.reset(key);
    }
  }

  /**
   * Attempts lose to other writers' commits, and the second of those adds a position delete to an
   * input of one group. The attempt after it validates only what was committed since the snapshot
   * the previous attempt validated, and still sees the delete: that group is CONFLICTED, the others
   * commit, the row stays deleted.
   */
  @Test
  void aConflictingDeleteLandingBetweenLostAttemptsIsStillSeen() {
    String key = useCommitFaultCatalog();
    Map<String, String> plain = LocalWarehouse.catalogProperties(warehouse);
    try {
      Table table = create(SMALL);
      AtomicInteger competitors = new AtomicInteger();
      AtomicReference<Map<String, Long>> latest = new AtomicReference<>();
      AtomicReference<String> deleteFile = new AtomicReference<>();
      JobResult result =
          run(
              job(),
              new GroupInterceptor() {
                @Override
                public void beforeCommit(PlanSummary summary) {
                  DataFile target =
                      groupTasks(summary, 1).stream()
                          .filter(
                              task ->
                                  task.deletes().stream()
                                      .noneMatch(d -> d.content() == FileContent.POSITION_DELETES))
                          .map(task -> (DataFile) task.file())
                          .findFirst()
                          .orElseThrow();
                  CommitFaultCatalog.armLostRaces(
                      key,
                      3,
                      () -> {
                        try (TableAccess other = new TableAccess(plain)) {
                          Table writer = other.catalog().loadTable(TableIdentifier.parse(TABLE));
                          if (competitors.incrementAndGet() == 2) {
                            DeleteFile delete = FragmentedTable.positionDelete(writer, target, 7);
                            writer.newRowDelta().addDeletes(delete).commit();
                            deleteFile.set(delete.location());
                          } else {
                            writer
                                .newAppend()
                                .appendFile(
                                    FragmentedTable.dataFile(
                                        writer,
                                        List.of(
                                            FragmentedTable.newOrder(
                                                2_000_000 + competitors.get(), 0))))
                                .commit();
                          }
                          latest.set(LiveRows.multiset(writer));
                        }
                      });
                }
              });

      assertThat(competitors.get()).as("other writers' commits that won").isEqualTo(3);
      assertStatus(result, JobStatus.PARTIAL);
      GroupOutcome conflicted = result.groups().get(1);
      assertThat(conflicted.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
      assertThat(conflicted.reason()).contains(deleteFile.get());
      assertThat(result.rewrittenGroups()).isEqualTo(3);
      assertThat(result.commit().each())
          .extracting(CommitAttempt::outcome)
          .containsExactly(
              CommitAttempt.Outcome.LOST,
              CommitAttempt.Outcome.LOST,
              CommitAttempt.Outcome.LOST,
              CommitAttempt.Outcome.WON);
      assertThat(LiveRows.multiset(table))
          .as("the deleted row stays deleted; every appended row is live")
          .isEqualTo(latest.get());
    } finally {
      CommitFaultCatalog.reset(key);
    }
  }

  /**
   * Switches the test's catalog to one whose commits can be faulted; returns the key its faults are
   * armed by.
   */
  private String useCommitFaultCatalog() {
    String key = warehouse.toAbsolutePath().toString();
    access.close();
    CommitFaultCatalog.reset(key);
    catalog = CommitFaultCatalog.wrap(LocalWarehouse.catalogProperties(warehouse));
    access = new TableAccess(catalog);
    return key;
  }

  private static Map<String, Long> multisetAt(Table table, long snapshotId) {
    Map<String, Long> rows = new TreeMap<>();
    int width = table.schema().columns().size();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(row -> rows.merge(LiveRows.text(row, width), 1L, Long::sum));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
