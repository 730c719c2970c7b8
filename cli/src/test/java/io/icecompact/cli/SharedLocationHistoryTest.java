package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.RewritePlanner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two tables on one location: db.copy is registered on db.src's metadata, so their jobs' default
 * work locations are one folder. {@code history} and {@code status} of each table show only its own
 * jobs, told apart by the table each job's stored result (or, before its commit, its plan) names.
 */
class SharedLocationHistoryTest {
  static final String SOURCE = "db.src";
  static final String COPY = "db.copy";

  @TempDir static Path warehouse;
  static String location;

  @BeforeAll
  static void jobsOfBothTablesInOneFolder() throws Exception {
    location = TestTables.create(warehouse, SOURCE, TestTables.SMALL);
    assertThat(compact(SOURCE, "job-src").get("status").asText()).isEqualTo("COMMITTED");
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      access
          .catalog()
          .registerTable(
              TableIdentifier.parse(COPY), TableAccess.metadataLocation(access.loadTable(SOURCE)));
      // a job of db.src stopped after planning: only its plan names its table
      new RewritePlanner(access)
          .plan(
              new JobSpec(
                  "job-src-planned",
                  SOURCE,
                  TestTables.catalog(warehouse),
                  Map.of("rewrite-all", "true"),
                  null,
                  null,
                  null));
    }
    assertThat(compact(COPY, "job-copy").get("status").asText()).isEqualTo("NOTHING_TO_DO");
  }

  private static JsonNode compact(String table, String jobId) throws Exception {
    CliRun run = CliRun.of(args("compact", table, "--job-id", jobId, "--json"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return JobJson.mapper().readTree(run.out());
  }

  static List<String> args(String command, String table, String... more) {
    List<String> args = new ArrayList<>(List.of(command, "--table", table));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  private static List<String> listedJobs(String table) throws Exception {
    CliRun run = CliRun.of(args("history", table, "--json"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> jobs = new ArrayList<>();
    JobJson.mapper()
        .readTree(run.out())
        .get("jobs")
        .forEach(job -> jobs.add(job.get("job_id").asText()));
    return jobs;
  }

  @Test
  void historyOfEachTableListsOnlyItsOwnJobs() throws Exception {
    assertThat(listedJobs(COPY)).containsExactly("job-copy");
    assertThat(listedJobs(SOURCE)).containsExactlyInAnyOrder("job-src", "job-src-planned");
  }

  @Test
  void theLimitCountsOnlyTheTablesOwnJobs() throws Exception {
    CliRun run = CliRun.of(args("history", COPY, "--limit", "1", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(JobJson.mapper().readTree(run.out()).get("jobs"))
        .extracting(job -> job.get("job_id").asText())
        .containsExactly("job-copy");
  }

  @Test
  void statusOfAnotherTablesJobSaysWhoseItIs() {
    CliRun committed = CliRun.of(args("status", COPY, "--job-id", "job-src"));
    CliRun planned = CliRun.of(args("status", COPY, "--job-id", "job-src-planned"));

    assertThat(committed.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(committed.err().lines().toList())
        .containsExactly(
            "error: Job job-src belongs to db.src, not db.copy: its result at "
                + location
                + "/_icecompact/job-src/result.json names db.src (the two tables share one location)");
    assertThat(committed.out()).isEmpty();
    assertThat(planned.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(planned.err().lines().toList())
        .containsExactly(
            "error: Job job-src-planned belongs to db.src, not db.copy: its plan at "
                + location
                + "/_icecompact/job-src-planned/plan.json names db.src (the two tables share one location)");
  }

  @Test
  void statusOfTheTablesOwnJobIsShown() {
    CliRun run = CliRun.of(args("status", COPY, "--job-id", "job-copy"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines().findFirst()).hasValue("db.copy job-copy: NOTHING_TO_DO");
  }
}
