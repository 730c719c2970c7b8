package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.history.WorkLocationHistory;
import io.icecompact.core.job.JobJson;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code history} and {@code status} without the deployed pipeline: two jobs run by {@code compact}
 * on one table (one committed, one with nothing to do) and one stopped before its commit, read back
 * from their work locations through the catalog.
 */
class HistoryCommandTest {
  static final String TABLE = "db.orders";

  @TempDir static Path warehouse;
  static String location;
  static JsonNode committed;
  static JsonNode nothingToDo;

  @BeforeAll
  static void runTwoJobs() throws Exception {
    location = TestTables.create(warehouse, TABLE, TestTables.SMALL);
    committed = compact("job-a");
    nothingToDo = compact("job-b");
    assertThat(committed.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(nothingToDo.get("status").asText()).isEqualTo("NOTHING_TO_DO");
  }

  private static JsonNode compact(String jobId) throws Exception {
    List<String> args =
        new ArrayList<>(List.of("compact", "--table", TABLE, "--job-id", jobId, "--json"));
    args.addAll(TestTables.catalogArgs(warehouse));
    CliRun run = CliRun.of(args);
    assertThat(run.exitCode()).as(run.err()).isZero();
    return JobJson.mapper().readTree(run.out());
  }

  static List<String> args(String command, String... more) {
    List<String> args = new ArrayList<>(List.of(command, "--table", TABLE));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  static JsonNode json(CliRun run) throws Exception {
    return JobJson.mapper()
        .readerFor(JsonNode.class)
        .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .readValue(run.out());
  }

  @Test
  void historyListsBothJobsNewestFirstWithStatusAndCounts() throws Exception {
    CliRun run = CliRun.of(args("history", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.systemOut()).isEmpty();
    JsonNode history = json(run);
    assertThat(history.get("table").asText()).isEqualTo(TABLE);
    assertThat(history.get("source").asText())
        .isEqualTo("the work locations under " + location + "/_icecompact");
    JsonNode jobs = history.get("jobs");
    assertThat(jobs).hasSize(2);
    JsonNode newest = jobs.get(0);
    assertThat(newest.get("job_id").asText()).isEqualTo("job-b");
    assertThat(newest.get("status").asText()).isEqualTo("NOTHING_TO_DO");
    assertThat(newest.get("counts").get("rewritten_data_files_count").asLong()).isZero();
    JsonNode older = jobs.get(1);
    assertThat(older.get("job_id").asText()).isEqualTo("job-a");
    assertThat(older.get("status").asText()).isEqualTo("COMMITTED");
    for (String count :
        List.of(
            "rewritten_data_files_count",
            "added_data_files_count",
            "rewritten_bytes_count",
            "rewritten_groups",
            "failed_groups")) {
      assertThat(older.get("counts").get(count).asLong())
          .as(count)
          .isEqualTo(committed.get(count).asLong());
    }
    assertThat(older.get("snapshot_ids")).isEqualTo(committed.get("snapshot_ids"));
    assertThat(older.get("result_location").asText())
        .isEqualTo(location + "/_icecompact/job-a/result.json");
    assertThat(older.get("started_at_millis").asLong())
        .isLessThan(newest.get("started_at_millis").asLong());
    assertThat(older.has("execution_arn")).as("no execution runs an embedded job").isFalse();

    CliRun limited = CliRun.of(args("history", "--limit", "1", "--json"));
    assertThat(json(limited).get("jobs"))
        .extracting(j -> j.get("job_id").asText())
        .containsExactly("job-b");
  }

  @Test
  void historyAsTextIsOneAlignedRowPerJob() throws Exception {
    CliRun run = CliRun.of(args("history"));
    // kept for the docs: what an operator sees
    Files.writeString(
        Path.of("target", "history.txt"),
        run.out() + "\n" + CliRun.of(args("status", "--job-id", "job-a")).out());

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0))
        .matches("started \\(UTC\\) +job +status +took +data files +groups +reason");
    assertThat(lines.get(1))
        .matches(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ +job-b +NOTHING_TO_DO +\\d+\\.\\d s +0 -> 0 +-");
    String files =
        committed.get("rewritten_data_files_count").asInt()
            + " -> "
            + committed.get("added_data_files_count").asInt();
    assertThat(lines.get(2))
        .matches(
            "\\S+ +job-a +COMMITTED +\\d+\\.\\d s +"
                + files
                + " +"
                + committed.get("rewritten_groups").asInt()
                + " rewritten");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void statusShowsTheCommittedJobsCountsGroupsAndSnapshot() {
    CliRun run = CliRun.of(args("status", "--job-id", "job-a"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).isEqualTo("db.orders job-a: COMMITTED");
    assertThat(lines.get(1)).matches("  started \\S+Z, took \\d+\\.\\d s");
    assertThat(run.out())
        .contains("  snapshot(s): [" + committed.get("snapshot_ids").get(0).asText() + "]")
        .contains(
            "  data files: "
                + committed.get("rewritten_data_files_count").asInt()
                + " rewritten -> "
                + committed.get("added_data_files_count").asInt()
                + " added")
        .contains("  groups: " + committed.get("rewritten_groups").asInt() + " rewritten\n")
        .contains("  rewrite paths: ")
        .contains("  result: " + location + "/_icecompact/job-a/result.json")
        .doesNotContain("execution");
  }

  @Test
  void statusOfTheJobWithNothingToDoSaysWhy() throws Exception {
    CliRun run = CliRun.of(args("status", "--job-id", "job-b", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode status = json(run);
    assertThat(status.get("job").get("status").asText()).isEqualTo("NOTHING_TO_DO");
    assertThat(status.get("result").get("reason").asText())
        .isEqualTo(nothingToDo.get("reason").asText());

    CliRun text = CliRun.of(args("status", "--job-id", "job-b"));
    assertThat(text.out().lines().toList().get(2))
        .isEqualTo("  " + nothingToDo.get("reason").asText());
  }

  @Test
  void anUnknownJobIsAnErrorNamingTheJobAndTheTable() throws Exception {
    CliRun run = CliRun.of(args("status", "--job-id", "job-nope"));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err())
        .isEqualTo(
            "error: Job job-nope of db.orders not found in the work locations under "
                + location
                + "/_icecompact"
                + System.lineSeparator());
    assertThat(run.out()).isEmpty();

    CliRun asJson = CliRun.of(args("status", "--job-id", "job-nope", "--json"));
    assertThat(asJson.exitCode()).isEqualTo(2);
    JsonNode error = json(asJson);
    assertThat(error.get("error_type").asText()).isEqualTo("JobNotFoundException");
    assertThat(error.get("message").asText()).startsWith("Job job-nope of db.orders not found");
  }

  /**
   * A job folder without a result (a job running, or stopped before its commit) is listed as such.
   */
  @Test
  void aJobWithoutAResultIsListedAsNoResult() throws Exception {
    Path other = Files.createDirectories(warehouse.resolve("other"));
    String otherLocation = TestTables.create(other, TABLE, TestTables.SMALL);
    Path stopped = TestTables.localPath(otherLocation).resolve("_icecompact/job-stopped/plan.json");
    Files.createDirectories(stopped.getParent());
    Files.writeString(stopped, "{}");
    List<String> args = new ArrayList<>(List.of("history", "--table", TABLE, "--json"));
    args.addAll(TestTables.catalogArgs(other));

    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode jobs = json(run).get("jobs");
    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).get("job_id").asText()).isEqualTo("job-stopped");
    assertThat(jobs.get(0).get("status").asText()).isEqualTo(WorkLocationHistory.NO_RESULT);
    assertThat(jobs.get(0).get("error").asText())
        .isEqualTo("no result.json yet: the job is running, or stopped before its commit");
  }

  @Test
  void aTableWithoutJobsHasAnEmptyHistoryAndAnUnknownTableIsBadInput() throws Exception {
    Path empty = Files.createDirectories(warehouse.resolve("empty"));
    TestTables.create(empty, TABLE, TestTables.SMALL);
    List<String> args = new ArrayList<>(List.of("history", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(empty));

    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).startsWith("No jobs of db.orders in the work locations under ");

    List<String> unknownTable = new ArrayList<>(List.of("history", "--table", "db.nope"));
    unknownTable.addAll(TestTables.catalogArgs(warehouse));
    CliRun unknown = CliRun.of(unknownTable);
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("error: Table not found: db.nope");
  }

  /**
   * HadoopFileIO (a catalog without io-impl) refuses to list a folder that does not exist: no jobs,
   * not an error.
   */
  @Test
  void withHadoopFileIOATableNeverCompactedHasNoJobs() throws Exception {
    Path fresh = Files.createDirectories(warehouse.resolve("fresh"));
    TestTables.create(fresh, TABLE, TestTables.SMALL);
    List<String> hadoopIo = new ArrayList<>();
    TestTables.catalog(fresh)
        .forEach(
            (key, value) -> {
              if (!key.equals("io-impl")) {
                hadoopIo.addAll(List.of("-c", key + "=" + value));
              }
            });
    List<String> history = new ArrayList<>(List.of("history", "--table", TABLE, "--json"));
    history.addAll(hadoopIo);
    List<String> status = new ArrayList<>(List.of("status", "--table", TABLE, "--job-id", "job-a"));
    status.addAll(hadoopIo);

    CliRun listed = CliRun.of(history);
    CliRun shown = CliRun.of(status);

    assertThat(listed.exitCode()).as(listed.err()).isZero();
    assertThat(json(listed).get("jobs")).isEmpty();
    assertThat(shown.exitCode()).isEqualTo(2);
    assertThat(shown.err())
        .startsWith("error: Job job-a of db.orders not found in the work locations under ");
  }
}
