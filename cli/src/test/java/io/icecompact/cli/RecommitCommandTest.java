package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code icecompact recommit} on a job whose run stopped after its workers and before its commit
 * (as an execution that failed in CommitSnapshot leaves it): the committer alone commits it, once.
 */
class RecommitCommandTest {
  static final String TABLE = "db.orders";
  static final String JOB = "job-stopped-before-commit";

  @TempDir Path warehouse;
  Map<String, Long> rowsBefore;
  int filesBefore;
  int groups;

  @BeforeEach
  void planAndRewriteWithoutCommitting() {
    TestTables.create(warehouse, TABLE, TestTables.SMALL);
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table = access.loadTable(TABLE);
      rowsBefore = LiveRows.multiset(table);
      filesBefore = TestTables.liveDataFiles(table).size();
      JobSpec job =
          new JobSpec(JOB, TABLE, TestTables.catalog(warehouse), Map.of(), null, null, null);
      PlanSummary plan = new RewritePlanner(access).plan(job);
      groups = plan.groupCount();
      for (int index : plan.groupIndexes()) {
        new GroupRewriter(access).rewrite(GroupRequest.of(job, plan, index, 1));
      }
    }
    assertThat(groups).isPositive();
    assertThat(snapshotsStampedWith(JOB)).isEmpty();
  }

  List<String> recommit(String jobId, String... more) {
    List<String> args = new ArrayList<>(List.of("recommit", "--table", TABLE, "--job-id", jobId));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void commitsTheStoppedJobOnceAndARunAgainReturnsTheSameResult() throws Exception {
    CliRun first = CliRun.of(recommit(JOB, "--json"));

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.err())
        .contains("re-running the committer of " + JOB + " (" + groups + " groups");
    JsonNode result = JobJson.mapper().readTree(first.out());
    assertThat(result.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(result.get("rewritten_groups").asInt()).isEqualTo(groups);
    List<Snapshot> stamped = snapshotsStampedWith(JOB);
    assertThat(stamped).hasSize(1);
    assertThat(result.get("snapshot_ids").get(0).asLong()).isEqualTo(stamped.get(0).snapshotId());
    TestTables.withTable(
        warehouse,
        TABLE,
        table -> {
          assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
          assertThat(TestTables.liveDataFiles(table).size()).isLessThan(filesBefore);
          return null;
        });

    CliRun second = CliRun.of(recommit(JOB, "--json"));

    assertThat(second.exitCode()).as(second.err()).isZero();
    JsonNode again = JobJson.mapper().readTree(second.out());
    assertThat(again.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(again.get("snapshot_ids")).isEqualTo(result.get("snapshot_ids"));
    assertThat(snapshotsStampedWith(JOB)).as("never a second snapshot").hasSize(1);
  }

  @Test
  void aJobWithoutAPlanExitsTwoNamingTheJobAndWhereItLooked() {
    CliRun run = CliRun.of(recommit("job-never-planned"));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err())
        .startsWith("error: Job job-never-planned of " + TABLE + " has no plan at ")
        .contains("/_icecompact/job-never-planned/plan.json: nothing to re-commit");
    assertThat(snapshotsStampedWith(JOB)).isEmpty();
  }

  /**
   * LocalFileIO once answered 0 for the length of a missing file, and the committer said "has 0
   * bytes".
   */
  @Test
  void aMissingOutputIsCalledMissingAndNothingIsCommitted() throws Exception {
    String location = TestTables.withTable(warehouse, TABLE, Table::location);
    WorkLocation work = new WorkLocation(location + "/_icecompact/" + JOB);
    String output =
        TestTables.withTable(
            warehouse,
            TABLE,
            table ->
                new JobStore(table.io())
                    .readGroupResult(work, 0)
                    .orElseThrow()
                    .outputFiles()
                    .get(0)
                    .get("file-path")
                    .asText());
    Files.delete(TestTables.localPath(output));
    TestTables.State before = TestTables.State.of(warehouse, TABLE);

    CliRun run = CliRun.of(recommit(JOB));

    assertThat(run.exitCode()).as(run.err()).isEqualTo(IcecompactCli.EXIT_JOB_NOT_DONE);
    assertThat(run.err().lines().toList())
        .last()
        .isEqualTo(
            "error: Job "
                + JOB
                + " not committed: group 0's output "
                + output
                + " is missing (no object at that location)");
    assertThat(snapshotsStampedWith(JOB)).isEmpty();
    TestTables.State after = TestTables.State.of(warehouse, TABLE);
    assertThat(after.snapshotId()).isEqualTo(before.snapshotId());
    assertThat(after.rows()).isEqualTo(before.rows());
  }

  /**
   * db.copy is registered on db.orders' metadata, so both tables share one location and its work
   * locations: the job folder is found under db.copy too, but the job was planned for db.orders.
   */
  @Test
  void aJobOfATableSharingTheLocationIsRefusedNamingBothTablesAndNothingIsCommitted() {
    String copy = "db.copy";
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      access
          .catalog()
          .registerTable(
              TableIdentifier.parse(copy), TableAccess.metadataLocation(access.loadTable(TABLE)));
    }
    TestTables.State source = TestTables.State.of(warehouse, TABLE);
    TestTables.State copied = TestTables.State.of(warehouse, copy);
    String location = TestTables.withTable(warehouse, TABLE, Table::location);
    List<String> args = new ArrayList<>(List.of("recommit", "--table", copy, "--job-id", JOB));
    args.addAll(TestTables.catalogArgs(warehouse));

    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err().lines().toList())
        .containsExactly(
            "error: Job "
                + JOB
                + " belongs to "
                + TABLE
                + ", not "
                + copy
                + ": its plan at "
                + location
                + "/_icecompact/"
                + JOB
                + "/plan.json names "
                + TABLE
                + " (the two tables share one location)");
    assertThat(snapshotsStampedWith(JOB)).isEmpty();
    assertThat(TestTables.State.of(warehouse, TABLE)).isEqualTo(source);
    assertThat(TestTables.State.of(warehouse, copy)).isEqualTo(copied);
  }

  private List<Snapshot> snapshotsStampedWith(String jobId) {
    return TestTables.withTable(
        warehouse,
        TABLE,
        table -> {
          List<Snapshot> stamped = new ArrayList<>();
          table
              .snapshots()
              .forEach(
                  s -> {
                    if (jobId.equals(s.summary().get("icecompact.job-id"))) {
                      stamped.add(s);
                    }
                  });
          return stamped;
        });
  }
}
