package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.IcecompactCli;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.testkit.LocalDynamoDb;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code icecompact history} and {@code status} read what the state machine's ReleaseLease and
 * ReleaseLeaseAfterFailure wrote: three executions (a compaction, one with nothing to do, one whose
 * planner failed) listed newest first, each with its execution ARN; the committed job's whole
 * result read through the catalog from the location its entry names.
 */
class StateMachineHistoryTest extends StateMachineTestBase {
  /**
   * The AWS SDK's default chains read these (the CLI's DynamoDB client); local DynamoDB takes any
   * keys.
   */
  private static final Map<String, String> AWS_PROPERTIES =
      Map.of(
          "aws.region",
          LocalDynamoDb.REGION,
          "aws.accessKeyId",
          "local",
          "aws.secretAccessKey",
          "local");

  private static final List<String> propertiesSet = new ArrayList<>();

  @BeforeAll
  static void awsDefaults() {
    AWS_PROPERTIES.forEach(
        (key, value) -> {
          if (System.getProperty(key) == null) {
            System.setProperty(key, value);
            propertiesSet.add(key);
          }
        });
  }

  @AfterAll
  static void clearAwsDefaults() {
    propertiesSet.forEach(System::clearProperty);
  }

  record Cli(int exitCode, String out, String err) {}

  private Cli cli(String command, List<String> more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                command,
                "--table",
                TABLE,
                "--lease-table",
                leaseTable,
                "--dynamodb-endpoint",
                dynamo.endpoint().toString()));
    args.addAll(more);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = IcecompactCli.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new Cli(code, out.toString(), err.toString());
  }

  @Test
  void historyListsEveryExecutionNewestFirstWithItsArnAndStatusReadsTheWholeResult()
      throws Exception {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);
    assertSucceeded(run(input(catalog)), COMPACTED_PATH);
    String committedJob = jobLog().get(0).jobId();
    assertThat(run(input(catalog)).status()).isEqualTo("SUCCEEDED"); // nothing to do
    Map<String, Object> badOption = input(catalog);
    badOption.put("options", Map.of("min-input-filez", "2"));
    assertThat(run(badOption).status()).isEqualTo("FAILED");
    List<String> executions = executionIds();
    assertThat(executions).hasSize(3);

    Cli history = cli("history", List.of("--json"));

    assertThat(history.exitCode()).as(history.err()).isZero();
    JsonNode jobs = tree(history.out()).get("jobs");
    assertThat(jobs)
        .extracting(j -> j.get("status").asText())
        .containsExactly("FAILED", "NOTHING_TO_DO", "COMMITTED");
    assertThat(jobs)
        .extracting(j -> j.get("execution_arn").asText())
        .containsExactly(executions.get(2), executions.get(1), executions.get(0));
    assertThat(jobs.get(0).get("error").asText())
        .startsWith(
            InvalidJobInputException.class.getName()
                + ": Unknown rewrite option 'min-input-filez'");
    assertThat(jobs.get(2).get("job_id").asText()).isEqualTo(committedJob);
    assertThat(jobs.get(2).get("counts").get("rewritten_data_files_count").asLong())
        .isEqualTo(INPUT_FILES);
    assertThat(jobs.get(2).get("counts").get("rewritten_groups").asLong()).isEqualTo(GROUPS);

    List<String> withCatalog = new ArrayList<>(List.of("--job-id", committedJob, "--json"));
    catalog.forEach((key, value) -> withCatalog.addAll(List.of("-c", key + "=" + value)));
    Cli status = cli("status", withCatalog);

    assertThat(status.exitCode()).as(status.err()).isZero();
    JsonNode shown = tree(status.out());
    assertThat(shown.get("job").get("execution_arn").asText()).isEqualTo(executions.get(0));
    assertThat(shown.get("result").get("status").asText()).isEqualTo("COMMITTED");
    assertThat(shown.get("result").get("groups")).hasSize(GROUPS);

    Cli text = cli("status", List.of("--job-id", committedJob));
    assertThat(text.out().lines().toList())
        .startsWith("db.orders " + committedJob + ": COMMITTED")
        .contains("  execution: " + executions.get(0), "  groups: " + GROUPS + " rewritten");
  }
}
