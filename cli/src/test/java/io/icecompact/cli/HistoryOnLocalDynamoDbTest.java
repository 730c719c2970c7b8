package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.fixtures.TestTables;
import io.icecompact.lease.JobLog;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.testkit.LocalDynamoDb;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code history} and {@code status} reading the deployed pipeline's job log from its DynamoDB
 * table (dynalite): entries as ReleaseLease writes them, with the execution that ran each job; with
 * the catalog as well, {@code status} reads the job's whole result from the location the entry
 * names.
 */
class HistoryOnLocalDynamoDbTest {
  static final String LEASES = "icecompact-leases";
  static final String TABLE = "db.orders";
  static final String EXECUTION =
      "arn:aws:states:us-east-1:123456789012:execution:icecompact-compaction:";
  static final long T0 = 1_764_000_000_000L;

  /**
   * The AWS SDK's default chains read these; dynalite accepts any credentials. Set only when
   * absent.
   */
  static final Map<String, String> AWS_PROPERTIES =
      Map.of(
          "aws.region",
          LocalDynamoDb.REGION,
          "aws.accessKeyId",
          "testkit",
          "aws.secretAccessKey",
          "testkit");

  static LocalDynamoDb dynamo;
  static final List<String> propertiesSet = new ArrayList<>();
  @TempDir static Path warehouse;
  static JsonNode committed;

  @BeforeAll
  static void writeTheJobLog() throws Exception {
    AWS_PROPERTIES.forEach(
        (key, value) -> {
          if (System.getProperty(key) == null) {
            System.setProperty(key, value);
            propertiesSet.add(key);
          }
        });
    dynamo = new LocalDynamoDb();
    LeaseTableSchema.create(dynamo.client(), LEASES);

    // a job compacted for real, so that its whole result exists where the entry says
    TestTables.create(warehouse, TABLE, TestTables.SMALL);
    List<String> compact =
        new ArrayList<>(List.of("compact", "--table", TABLE, "--job-id", "job-1", "--json"));
    compact.addAll(TestTables.catalogArgs(warehouse));
    CliRun run = CliRun.of(compact);
    assertThat(run.exitCode()).as(run.err()).isZero();
    committed = JobJson.mapper().readTree(run.out());
    JobResult result = JobJson.mapper().treeToValue(committed, JobResult.class);
    String resultLocation =
        TestTables.withTable(warehouse, TABLE, t -> t.location())
            + "/_icecompact/job-1/result.json";

    JobLog log = new JobLog(dynamo.client(), LEASES);
    log.record(JobLogEntry.of(result.summary(resultLocation), T0, 61_000, EXECUTION + "e-1"));
    log.record(
        JobLogEntry.failed(
            TABLE,
            "job-2",
            T0 + 3_600_000,
            4_000,
            "io.icecompact.core.error.TransientException: S3 503 Slow Down",
            EXECUTION + "e-2"));
    log.record(
        JobLogEntry.of(
            JobResult.nothingToDo("job-3", TABLE, "no file met a threshold", 900),
            T0 + 7_200_000,
            900,
            EXECUTION + "e-3"));
    log.record(JobLogEntry.failed("db.other", "job-9", T0, 1, "x: y", EXECUTION + "e-9"));
  }

  @AfterAll
  static void stop() {
    dynamo.close();
    propertiesSet.forEach(System::clearProperty);
  }

  static List<String> args(String command, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                command,
                "--table",
                TABLE,
                "--lease-table",
                LEASES,
                "--dynamodb-endpoint",
                dynamo.endpoint().toString()));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void historyReadsTheJobLogNewestFirstWithEachExecution() throws Exception {
    CliRun run = CliRun.of(args("history", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode history = JobJson.mapper().readTree(run.out());
    assertThat(history.get("source").asText()).isEqualTo("the job log in DynamoDB table " + LEASES);
    JsonNode jobs = history.get("jobs");
    assertThat(jobs)
        .extracting(j -> j.get("job_id").asText())
        .containsExactly("job-3", "job-2", "job-1");
    assertThat(jobs)
        .extracting(j -> j.get("status").asText())
        .containsExactly("NOTHING_TO_DO", "FAILED", "COMMITTED");
    assertThat(jobs)
        .extracting(j -> j.get("execution_arn").asText())
        .containsExactly(EXECUTION + "e-3", EXECUTION + "e-2", EXECUTION + "e-1");
    assertThat(jobs.get(1).get("error").asText())
        .isEqualTo("io.icecompact.core.error.TransientException: S3 503 Slow Down");
    assertThat(jobs.get(2).get("counts").get("rewritten_data_files_count").asLong())
        .isEqualTo(committed.get("rewritten_data_files_count").asLong());
    assertThat(jobs.get(2).get("snapshot_ids")).isEqualTo(committed.get("snapshot_ids"));

    CliRun text = CliRun.of(args("history", "--limit", "2"));
    List<String> lines = text.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(1))
        .matches("2025-11-24T18:00:00Z +job-3 +NOTHING_TO_DO +0\\.9 s +0 -> 0 +-");
    assertThat(lines.get(2))
        .matches(
            "2025-11-24T17:00:00Z +job-2 +FAILED +4\\.0 s +- +- +io\\.icecompact\\.core\\.error\\.TransientException:"
                + " S3 503 Slow Down");
  }

  @Test
  void statusShowsTheExecutionAndWithTheCatalogTheWholeResult() throws Exception {
    CliRun run = CliRun.of(args("status", "--job-id", "job-2"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines().toList())
        .containsExactly(
            "db.orders job-2: FAILED",
            "  started 2025-11-24T17:00:00Z, took 4.0 s",
            "  execution: " + EXECUTION + "e-2",
            "  io.icecompact.core.error.TransientException: S3 503 Slow Down");

    List<String> withCatalog = args("status", "--job-id", "job-1", "--json");
    withCatalog.addAll(TestTables.catalogArgs(warehouse));
    CliRun whole = CliRun.of(withCatalog);
    assertThat(whole.exitCode()).as(whole.err()).isZero();
    JsonNode status = JobJson.mapper().readTree(whole.out());
    assertThat(status.get("job").get("execution_arn").asText()).isEqualTo(EXECUTION + "e-1");
    assertThat(status.get("job").get("duration_millis").asLong()).isEqualTo(61_000);
    assertThat(status.get("result").get("groups")).hasSize(committed.get("groups").size());
    assertThat(status.get("result").get("snapshot_ids")).isEqualTo(committed.get("snapshot_ids"));
  }

  @Test
  void anUnknownJobNamesTheJobTheTableAndTheLeaseTable() {
    CliRun run = CliRun.of(args("status", "--job-id", "job-9"));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err().lines().toList())
        .containsExactly(
            "error: Job job-9 of db.orders not found in the job log in DynamoDB table " + LEASES);
    assertThat(run.out()).isEmpty();
  }
}
