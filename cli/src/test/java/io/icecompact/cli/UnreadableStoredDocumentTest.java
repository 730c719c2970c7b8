package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's stored document overwritten with garbage: {@code status}, {@code recommit} and {@code
 * history} say in one line which file cannot be parsed and why, where they printed Jackson's
 * message over several lines.
 */
class UnreadableStoredDocumentTest {
  static final String TABLE = "db.orders";
  static final String JOB = "job-a";
  static final String GARBAGE = "not json {";

  /** Jackson's reason for {@link #GARBAGE}, on one line, with where the bad token starts. */
  static final String REASON =
      "Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token"
          + " 'null', 'true' or 'false') (line 1, column 1)";

  @TempDir Path warehouse;
  Path jobFolder;

  @BeforeEach
  void committedJob() throws Exception {
    String location = TestTables.create(warehouse, TABLE, TestTables.SMALL);
    CliRun run = CliRun.of(args("compact", "--job-id", JOB));
    assertThat(run.exitCode()).as(run.err()).isZero();
    jobFolder = TestTables.localPath(location).resolve("_icecompact").resolve(JOB);
  }

  List<String> args(String command, String... more) {
    List<String> args = new ArrayList<>(List.of(command, "--table", TABLE));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void statusOfAJobWhoseResultIsGarbageIsOneLineNamingTheFileAndExitsTwo() throws Exception {
    Path result = corrupt("result.json");

    CliRun run = CliRun.of(args("status", "--job-id", JOB));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err().lines().toList())
        .containsExactly("error: Cannot parse " + result + ": " + REASON);
    assertThat(run.out()).isEmpty();
  }

  @Test
  void recommitOfAJobWhoseResultIsGarbageSaysSoInOneLineAndCommitsNothing() throws Exception {
    Path result = corrupt("result.json");
    TestTables.State before = TestTables.State.of(warehouse, TABLE);

    CliRun run = CliRun.of(args("recommit", "--job-id", JOB));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    List<String> err = run.err().lines().toList();
    assertThat(err).hasSize(2);
    assertThat(err.get(0)).startsWith("re-running the committer of " + JOB);
    assertThat(err.get(1)).isEqualTo("error: Cannot parse " + result + ": " + REASON);
    TestTables.State after = TestTables.State.of(warehouse, TABLE);
    assertThat(after.snapshots()).isEqualTo(before.snapshots());
    assertThat(after.rows()).isEqualTo(before.rows());
  }

  @Test
  void recommitOfAJobWhosePlanIsGarbageSaysSoInOneLine() throws Exception {
    Path plan = corrupt("plan.json");

    CliRun run = CliRun.of(args("recommit", "--job-id", JOB, "--json"));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err().lines().toList())
        .containsExactly("error: Cannot parse plan " + plan + ": " + REASON);
    JsonNode error = JobJson.mapper().readTree(run.out());
    assertThat(error.get("error_type").asText()).isEqualTo("StoredDocumentUnreadableException");
    assertThat(error.get("exit_code").asInt()).isEqualTo(2);
  }

  /** One unreadable job does not hide the others: it is listed, its reason the same one line. */
  @Test
  void historyListsTheJobAsUnreadableWithTheOneLineReason() throws Exception {
    Path result = corrupt("result.json");

    CliRun run = CliRun.of(args("history", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode job = JobJson.mapper().readTree(run.out()).get("jobs").get(0);
    assertThat(job.get("job_id").asText()).isEqualTo(JOB);
    assertThat(job.get("status").asText()).isEqualTo("UNREADABLE");
    assertThat(job.get("error").asText()).isEqualTo("Cannot parse " + result + ": " + REASON);
  }

  private Path corrupt(String name) throws Exception {
    Path file = jobFolder.resolve(name);
    assertThat(file).exists();
    Files.writeString(file, GARBAGE);
    return file;
  }
}
