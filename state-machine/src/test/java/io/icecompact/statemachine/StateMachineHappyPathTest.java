package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Scenario 1: a fragmented table is compacted into one snapshot, with either catalog. */
class StateMachineHappyPathTest extends StateMachineTestBase {

  @Test
  void compactsAFragmentedTableInOneSnapshotWithTheJdbcCatalog() {
    compactsAFragmentedTable(jdbcCatalog());
  }

  @Test
  void compactsAFragmentedTableInOneSnapshotWithTheDynamoDbCatalog() {
    compactsAFragmentedTable(dynamoDbCatalog());
  }

  @Test
  void aSecondExecutionFindsNothingToDoAndSaysWhy() throws IOException {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    assertSucceeded(run(input(catalog)), COMPACTED_PATH);
    int snapshotsBefore = snapshots(table).size();
    lambda.resetCounts();

    ExecutionResult result = run(input(catalog));

    assertSucceeded(
        result,
        List.of(
            "AcquireLease",
            "LeaseAcquired?",
            "PlanRewrite",
            "AnythingToDo?",
            "NothingToDo",
            "ReleaseLease",
            "Done"));
    JsonNode output = result.outputJson();
    assertJobStatus(output, "NOTHING_TO_DO");
    assertThat(output.get("table").asText()).isEqualTo(TABLE);
    assertThat(output.get("reason").asText()).isNotBlank();
    assertThat(output.get("job_id").asText())
        .isEqualTo(payloads(PLAN_REWRITE).get(0).get("job").get("job_id").asText());
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertInvocations(1, 1, 0, 0, 0, 1);
    List<JobLogEntry> log = jobLog(); // newest first
    assertThat(log).extracting(JobLogEntry::status).containsExactly("NOTHING_TO_DO", "COMMITTED");
    assertThat(log.get(0).jobId()).isEqualTo(output.get("job_id").asText());
    assertThat(log.get(0).snapshotIds()).isEmpty();
    assertThat(leaseItem()).containsKey("released_at");
    assertThat(number(leaseItem(), "token")).isEqualTo(2);
    assertTheEmbeddedRunnerSaysTheSame(output, catalog);
  }

  /**
   * The NothingToDo state passes on the planner's result: the embedded runner, planning the same
   * table, returns the same fields with the same values (only its job id and duration differ).
   */
  private static void assertTheEmbeddedRunnerSaysTheSame(
      JsonNode output, Map<String, String> catalog) throws IOException {
    JobResult embedded =
        new EmbeddedJobRunner(1, ProgressListener.NONE)
            .run(new JobSpec(null, TABLE, catalog, Map.of(), null, null, null));
    // read back from its JSON text, as the execution's output is, so that numbers compare as
    // numbers
    ObjectNode expected = (ObjectNode) JobJson.mapper().readTree(JobJson.toJson(embedded));
    ObjectNode actual = output.deepCopy();
    for (ObjectNode result : List.of(expected, actual)) {
      result.remove(List.of("job_id", "duration_millis"));
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(embedded.status()).isEqualTo(JobStatus.NOTHING_TO_DO);
  }

  private void compactsAFragmentedTable(Map<String, String> catalog) {
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertThat(jobId).matches("job-[0-9a-f]{12}");
    assertThat(output.get("table").asText()).isEqualTo(TABLE);
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("snapshot_ids")).hasSize(1);
    long snapshotId = output.get("snapshot_ids").get(0).asLong();
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    assertThat(output.get("failed_groups").asInt()).isZero();
    assertThat(output.get("conflicted_groups").asInt()).isZero();
    assertThat(output.get("rewritten_data_files_count").asInt()).isEqualTo(INPUT_FILES);
    assertThat(output.get("added_data_files_count").asInt()).isEqualTo(GROUPS);
    assertThat(output.get("failed_data_files_count").asInt()).isZero();
    assertThat(output.get("verification").get("verified").asBoolean()).isTrue();
    assertThat(output.get("verification").get("problems")).isEmpty();
    assertThat(wholeResult(output).get("groups")).hasSize(GROUPS);
    wholeResult(output)
        .get("groups")
        .forEach(
            group -> {
              assertJobStatus(group, "REWRITTEN");
              assertThat(group.get("snapshot_id").asLong()).isEqualTo(snapshotId);
            });

    // exactly one new snapshot: the job's replace, now current
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertReplaceStampedWith(replace, jobId);
    assertThat(replace.snapshotId()).isEqualTo(snapshotId);
    assertThat(replace.summary())
        .containsEntry("deleted-data-files", Integer.toString(INPUT_FILES))
        .containsEntry("added-data-files", Integer.toString(GROUPS));
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotId);
    assertThat(liveTasks(table)).hasSize(GROUPS);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);

    // the job log has the job, the lease was released
    List<JobLogEntry> log = jobLog();
    assertThat(log).hasSize(1);
    JobLogEntry entry = log.get(0);
    assertThat(entry.jobId()).isEqualTo(jobId);
    assertThat(entry.status()).isEqualTo("COMMITTED");
    assertThat(entry.snapshotIds()).containsExactly(snapshotId);
    assertThat(entry.error()).isNull();
    assertThat(entry.counts())
        .containsEntry("rewritten_data_files_count", (long) INPUT_FILES)
        .containsEntry("added_data_files_count", (long) GROUPS);

    List<String> executions = executionIds();
    assertThat(executions).hasSize(1);
    assertThat(executions.get(0))
        .matches("arn:aws:states:us-east-1:123456789012:execution:[^:]+:[0-9a-f-]{36}");
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).isEqualTo(executions.get(0));
    assertThat(number(lease, "token")).isEqualTo(1);
    assertThat(lease).containsKey("released_at");
    LeaseGrant next = leaseSteps.lease().acquire(TABLE, "another-execution", Duration.ofMinutes(5));
    assertThat(next.acquired()).isTrue();
    assertThat(next.token()).isEqualTo(2);

    assertInvocations(1, 1, GROUPS, 0, 1, 1);
    assertThat(rewriteInvocationsByGroup())
        .hasSize(GROUPS)
        .allSatisfy((group, calls) -> assertThat(calls).isEqualTo(1));
  }
}
