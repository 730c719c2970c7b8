package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.TransientException;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * A re-commit on the local stand-ins: an execution whose committer kept failing ends in JobFailed
 * with every group rewritten and nothing committed; an execution with {@code recommit: true} and
 * that job's id loads the stored plan, rewrites nothing and commits the job once.
 */
class StateMachineRecommitTest extends StateMachineTestBase {
  private static final List<String> RECOMMIT_PATH =
      List.of(
          "AcquireLease",
          "LeaseAcquired?",
          "LoadStoredPlan",
          "CommitSnapshot",
          "CareRequested?",
          "NoCare",
          "ReleaseLease",
          "Done");

  @Test
  void aJobWhoseCommitterFailedIsCommittedByARecommitExecutionAndOnlyOnce() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          throw new TransientException("injected: the catalog is unreachable", null);
        });

    ExecutionResult failed = run(input(catalog));

    assertThat(failed.status()).isEqualTo("FAILED");
    assertThat(failed.states()).contains("CommitSnapshot", "ReleaseLeaseAfterFailure");
    String jobId = payloads(PLAN_REWRITE).get(0).get("job").get("job_id").asText();
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    int rewrites = lambda.invocations(REWRITE_GROUP);
    assertThat(rewrites).isEqualTo(GROUPS);

    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease()));
    Map<String, Object> recommit = input(catalog);
    recommit.put("job_id", jobId);
    recommit.put("recommit", true);
    ExecutionResult result = run(recommit);

    assertSucceeded(result, RECOMMIT_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("job_id").asText()).isEqualTo(jobId);
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    assertThat(lambda.invocations(REWRITE_GROUP)).as("nothing rewritten again").isEqualTo(rewrites);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);

    // a second re-commit finds the job's snapshot by its stamp: the same result, no second snapshot
    ExecutionResult again = run(recommit);

    assertSucceeded(again, RECOMMIT_PATH);
    assertThat(again.outputJson().get("snapshot_ids")).isEqualTo(output.get("snapshot_ids"));
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
  }

  @Test
  void aRecommitWithoutAJobIdIsRejectedBeforeAnythingIsWritten() {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);
    Map<String, Object> recommit = input(catalog);
    recommit.put("recommit", true);

    ExecutionResult result = run(recommit);

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states()).containsExactly("AcquireLease", "InvalidInput");
    assertThat(tree(result.cause()).get("errorMessage").asText())
        .isEqualTo(
            "Execution input is invalid: recommit needs job_id, the id of the job whose committer to run again");
    assertThat(leaseTableItemCount()).isZero();
  }

  @Test
  void aRecommitOfAnUnknownJobFailsNamingIt() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    Map<String, Object> recommit = input(catalog);
    recommit.put("job_id", "job-never-planned");
    recommit.put("recommit", true);

    ExecutionResult result = run(recommit);

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states()).contains("LoadStoredPlan", "ReleaseLeaseAfterFailure");
    assertThat(result.cause()).contains("Job job-never-planned of " + TABLE + " has no plan at");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertThat(leaseItem()).containsKey("released_at");
  }
}
