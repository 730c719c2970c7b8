package io.icecompact.cli.fleet;

import static io.icecompact.cli.fleet.HealthWarehouse.BAD;
import static io.icecompact.cli.fleet.HealthWarehouse.DV3;
import static io.icecompact.cli.fleet.HealthWarehouse.FRESH;
import static io.icecompact.cli.fleet.HealthWarehouse.HOURLY;
import static io.icecompact.cli.fleet.HealthWarehouse.LEFTOVER;
import static io.icecompact.cli.fleet.HealthWarehouse.MOR2;
import static io.icecompact.cli.fleet.HealthWarehouse.OPT_OUT;
import static io.icecompact.cli.fleet.HealthWarehouse.RECENT;
import static io.icecompact.cli.fleet.HealthWarehouse.STREAM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.fleet.CompactionPrediction;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import io.icecompact.planner.fleet.TableHealth;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decision tree of docs/fleet.md on its lab of tables: the ranking by score and each table's
 * decision as the seed reasons it, from metadata and the planner's dry run.
 */
class FleetAssessorTest {
  @TempDir static Path warehouse;
  static List<TableAssessment> lab;
  static List<TableAssessment> ops;
  static TestTables.State hourlyBefore;

  @BeforeAll
  static void buildAndAssess() {
    HealthWarehouse.build(warehouse);
    hourlyBefore = TestTables.State.of(warehouse, HOURLY);
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      lab = new FleetAssessor(access).assess(List.of("lab"));
      ops = new FleetAssessor(access).assess(List.of("ops"));
    }
  }

  static Map<String, TableAssessment> byTable(List<TableAssessment> assessments) {
    return assessments.stream()
        .collect(Collectors.toMap(TableAssessment::table, Function.identity()));
  }

  @Test
  void seedThreesNumbersPerTable() {
    Map<String, TableAssessment> t = byTable(lab);
    // files, partitions, excess, delete files, delete records, snapshots since the last compaction
    assertHealth(t.get(STREAM).health(), 60, 12, 48, 0, 0, 60);
    assertHealth(t.get(HOURLY).health(), 90, 48, 42, 0, 0, 8);
    assertHealth(t.get(LEFTOVER).health(), 32, 16, 16, 0, 0, 0);
    // every file has every 50th of its 2,000 rows deleted by position (8 x 40), and 40 order ids by
    // equality
    TableHealth mor2 = t.get(MOR2).health();
    assertThat(mor2.deleteRecords()).isEqualTo(8 * 40 + 40);
    assertThat(mor2.deleteFiles()).isGreaterThan(8);
    assertHealth(mor2, 8, 4, 4, mor2.deleteFiles(), 360, 10);
    // 6 deletion vectors of every 50th of 400 rows
    assertHealth(t.get(DV3).health(), 15, 3, 12, 6, 6 * 8, 16);
    assertHealth(t.get(FRESH).health(), 5, 4, 1, 0, 0, 1);

    assertThat(mor2.deletesPerDataFile()).isEqualTo(45.0);
    assertThat(mor2.score()).isEqualTo(4 + 0.45 + 10);
    assertThat(t.get(STREAM).health().score()).isEqualTo(108);
    assertThat(t.get(HOURLY).health().score()).isEqualTo(50);
    assertThat(t.get(FRESH).health().score()).isEqualTo(2);
    assertThat(t.get(LEFTOVER).health().lastCompactionMillis()).isNotNull();
    assertThat(t.get(STREAM).health().lastCompactionMillis()).isNull();
  }

  @Test
  void rankedByScoreWithTheTablesToCompactFirst() {
    assertThat(lab)
        .extracting(TableAssessment::table, TableAssessment::decision)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(STREAM, Decision.COMPACT),
            org.assertj.core.groups.Tuple.tuple(DV3, Decision.COMPACT),
            org.assertj.core.groups.Tuple.tuple(LEFTOVER, Decision.COMPACT),
            org.assertj.core.groups.Tuple.tuple(MOR2, Decision.COMPACT),
            org.assertj.core.groups.Tuple.tuple(HOURLY, Decision.SKIP_NO_OP),
            org.assertj.core.groups.Tuple.tuple(FRESH, Decision.SKIP_NO_OP));
    // by score alone, the measured order (docs/fleet.md): the stream on top, the hourly table
    // second, the leftover above
    // the merge-on-read table, the freshly compacted one at the bottom
    List<String> byScore =
        lab.stream()
            .sorted((a, b) -> Double.compare(b.score(), a.score()))
            .map(TableAssessment::table)
            .toList();
    assertThat(byScore).containsExactly(STREAM, HOURLY, DV3, LEFTOVER, MOR2, FRESH);
  }

  @Test
  void theStreamIsOneFilePerPartitionAfterItsJob() {
    CompactionPrediction p = byTable(lab).get(STREAM).prediction();

    assertThat(p.groups()).isEqualTo(12);
    assertThat(p.dataFilesRead()).isEqualTo(60);
    assertThat(p.filesWrittenEstimate()).isEqualTo(12);
    assertThat(p.requestsRead()).isEqualTo(60);
    assertThat(p.requestsWritten()).isEqualTo(12);
    assertThat(p.readerRequestsSavedPerScan()).isEqualTo(48);
    assertThat(p.bytesWrittenEstimate()).isEqualTo(p.bytesRead()); // nothing deleted
    assertThat(p.bytesRead()).isEqualTo(byTable(lab).get(STREAM).health().dataBytes());
  }

  @Test
  void theLeftoverCompactsOnlyThePartitionsTheFailedJobLeft() {
    TableAssessment leftover = byTable(lab).get(LEFTOVER);

    assertThat(leftover.prediction().groups()).isEqualTo(4);
    assertThat(leftover.prediction().dataFilesRead()).isEqualTo(20);
    assertThat(leftover.reason()).isEqualTo("4 groups of 20 files would be rewritten into about 4");
  }

  /**
   * Two files per day is no group by size: the v2 default {@code delete-file-threshold=1} makes
   * every file with deletes a candidate, and the delete files are cleaned up after.
   */
  @Test
  void aV2TableWithDeletesIsCompactedForItsDeletesAndCleanedAfter() {
    TableAssessment mor2 = byTable(lab).get(MOR2);

    assertThat(mor2.policy().options()).containsEntry("delete-file-threshold", "1");
    assertThat(mor2.policy().steps()).contains(CareStep.DELETE_CLEANUP);
    assertThat(mor2.prediction().groups()).isEqualTo(4);
    assertThat(mor2.prediction().dataFilesRead()).isEqualTo(8);
    assertThat(mor2.prediction().deleteFilesRead()).isEqualTo(mor2.health().deleteFiles());
    assertThat(mor2.prediction().deletedRowsEstimate()).isEqualTo(360);
    assertThat(mor2.prediction().bytesWrittenEstimate())
        .isLessThan(mor2.prediction().bytesRead())
        .isGreaterThan(0);

    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      access
          .loadTable(MOR2)
          .updateProperties()
          .set("icecompact.option.delete-file-threshold", "2147483647")
          .commit();
      try {
        // no compaction then: its equality deletes (40 rows) are converted, since no other job
        // would remove them
        TableAssessment without = new FleetAssessor(access).assess(MOR2);
        assertThat(without.decision()).isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
        assertThat(without.reason())
            .contains("; no compaction to do (No file group met a rewrite threshold")
            .contains("): converted, reading about ");
      } finally {
        access
            .loadTable(MOR2)
            .updateProperties()
            .remove("icecompact.option.delete-file-threshold")
            .commit();
      }
    }
  }

  @Test
  void aV3TableIsCompactedWithoutTheV2DeleteSettings() {
    TableAssessment dv3 = byTable(lab).get(DV3);

    assertThat(dv3.policy().options()).doesNotContainKey("delete-file-threshold");
    assertThat(dv3.policy().steps()).doesNotContain(CareStep.DELETE_CLEANUP);
    assertThat(dv3.prediction().groups()).isEqualTo(3);
    assertThat(dv3.prediction().deleteFilesRead()).isEqualTo(6);
    assertThat(dv3.prediction().readerRequestsSavedPerScan()).isEqualTo(15 + 6 - 3);
  }

  /**
   * A high score is not a job: no hour holds min-input-files files, so the planner finds no group.
   */
  @Test
  void aPredictedNoOpStartsNoJob() {
    TableAssessment hourly = byTable(lab).get(HOURLY);

    assertThat(hourly.prediction()).isNull();
    assertThat(hourly.reason())
        .startsWith("No file group met a rewrite threshold among 90 data files")
        .contains("at most 2 in one partition (min-input-files=5)");
    assertThat(TestTables.State.of(warehouse, HOURLY))
        .isEqualTo(hourlyBefore); // assessing wrote nothing
    assertThat(byTable(lab).get(FRESH).decision()).isEqualTo(Decision.SKIP_NO_OP);

    // the job the prediction stands for has nothing to do either
    JobResult job =
        new EmbeddedJobRunner(1, ProgressListener.NONE)
            .run(
                new JobSpec(
                    null,
                    HOURLY,
                    TestTables.catalog(warehouse),
                    hourly.policy().options(),
                    null,
                    null,
                    null));
    assertThat(job.status()).isEqualTo(JobStatus.NOTHING_TO_DO);
    assertThat(TestTables.State.of(warehouse, HOURLY).snapshotId())
        .isEqualTo(hourlyBefore.snapshotId());
  }

  @Test
  void theTablesPropertiesDecide() {
    Map<String, TableAssessment> t = byTable(ops);

    assertThat(t.get(OPT_OUT).decision()).isEqualTo(Decision.SKIP_DISABLED);
    assertThat(t.get(OPT_OUT).reason()).isEqualTo("icecompact.enabled is false");
    assertThat(t.get(RECENT).decision()).isEqualTo(Decision.SKIP_TOO_SOON);
    assertThat(t.get(RECENT).reason())
        .matches("last compaction at .*Z, \\d+ s ago; icecompact.min-interval is PT6H");
    assertThat(t.get(BAD).decision()).isEqualTo(Decision.SKIP_INVALID_POLICY);
    assertThat(t.get(BAD).reason())
        .isEqualTo(
            "Table ops.bad: property 'icecompact.option.min-input-files' is invalid: 'min-input-files' is set to five"
                + " but must be a whole number");
    assertThat(t.get(BAD).health().dataFiles()).isEqualTo(15); // its health is still shown
  }

  @Test
  void severalNamespacesRankTogetherAndAnUnknownOneIsBadInput() {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      List<TableAssessment> all = new FleetAssessor(access).assess(List.of("ops", "lab"));
      assertThat(all).hasSize(9);
      assertThat(all.get(0).table()).isEqualTo(STREAM);

      assertThatThrownBy(() -> new FleetAssessor(access).assess(List.of("nope")))
          .isInstanceOf(InvalidJobInputException.class)
          .hasMessage("Namespace not found: nope");
    }
  }

  /**
   * The prediction is what the job then does: the files it reads and writes, the partitions it
   * leaves at one file, and no job after it. On v2 the equality delete files stay listed until the
   * delete-cleanup step, so the score keeps their term.
   */
  @Test
  void thePredictionIsWhatTheJobDoes() {
    String table = "pred.mor2";
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      io.icecompact.fixtures.FragmentedTable.create(
          access.catalog(),
          org.apache.iceberg.catalog.TableIdentifier.parse(table),
          new io.icecompact.fixtures.FragmentedTable.Shape(4, 3, 2000, 2, 12, 40, true));
    }
    TableAssessment before;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      before = new FleetAssessor(access).assess(table);
    }
    CompactionPrediction p = before.prediction();
    assertThat(before.decision()).isEqualTo(Decision.COMPACT);

    JobResult job =
        new EmbeddedJobRunner(2, ProgressListener.NONE)
            .run(
                new JobSpec(
                    null,
                    table,
                    TestTables.catalog(warehouse),
                    before.policy().options(),
                    null,
                    before.policy().where(),
                    null));

    assertThat(job.status()).isEqualTo(JobStatus.COMMITTED);
    assertThat(job.rewrittenGroups()).isEqualTo(p.groups());
    assertThat(job.rewrittenDataFilesCount()).isEqualTo(p.dataFilesRead()).isEqualTo(12);
    assertThat(job.addedDataFilesCount()).isEqualTo(p.filesWrittenEstimate()).isEqualTo(4);
    TableAssessment after;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      after = new FleetAssessor(access).assess(table);
    }
    assertThat(after.health().excessFiles()).isZero();
    assertThat(after.health().snapshotsSinceCompaction()).isZero();
    // the committer drops the position delete files of the files it rewrote; the equality delete
    // files
    // (one per day) stay listed, applying to nothing, until the delete-cleanup step
    assertThat(job.removedDeleteFilesCount()).isEqualTo(12);
    assertThat(after.health().deleteFiles())
        .isEqualTo(before.health().deleteFiles() - 12)
        .isEqualTo(4);
    assertThat(after.decision()).isEqualTo(Decision.SKIP_NO_OP);
    // the estimate of bytes written against what the job wrote: one merged file compresses
    // differently
    double ratio = (double) after.health().dataBytes() / p.bytesWrittenEstimate();
    System.err.printf(
        "pred.mor2: estimated %d bytes written, wrote %d (%.2f); read %d%n",
        p.bytesWrittenEstimate(), after.health().dataBytes(), ratio, p.bytesRead());
    assertThat(ratio).isBetween(0.5, 1.5);
  }

  private static void assertHealth(
      TableHealth h,
      long files,
      long partitions,
      long excess,
      long deleteFiles,
      long deleteRecords,
      int since) {
    assertThat(h.dataFiles()).as(h.table() + " files").isEqualTo(files);
    assertThat(h.partitions()).as(h.table() + " partitions").isEqualTo(partitions);
    assertThat(h.excessFiles()).as(h.table() + " excess").isEqualTo(excess);
    assertThat(h.deleteFiles()).as(h.table() + " delete files").isEqualTo(deleteFiles);
    assertThat(h.deleteRecords()).as(h.table() + " delete records").isEqualTo(deleteRecords);
    assertThat(h.snapshotsSinceCompaction()).as(h.table() + " since").isEqualTo(since);
  }
}
