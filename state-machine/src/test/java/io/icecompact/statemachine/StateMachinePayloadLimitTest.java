package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * Why every payload must stay bounded, as the tests now see it: a CommitSnapshot result over 256
 * KiB (what the whole job result was past ~750 groups) fails the execution after the snapshot is
 * committed, and, since {@code States.ALL} does not catch {@code States.DataLimitExceeded}, nothing
 * releases the lease or logs the job.
 */
class StateMachinePayloadLimitTest extends StateMachineTestBase {

  @Test
  void aCommitResultOverTheLimitFailsTheExecutionAfterTheCommitAndLeavesTheLeaseHeld() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    CommitSnapshotHandler real = new CommitSnapshotHandler(leaseSteps.lease());
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          ByteArrayOutputStream result = new ByteArrayOutputStream();
          real.handleRequest(in, result, context);
          ObjectNode padded = (ObjectNode) JSON.readTree(result.toByteArray());
          padded.put("groups", "x".repeat(300_000)); // the size of the whole result at ~900 groups
          JSON.writeValue(out, padded);
        });

    ExecutionResult result = run(input(catalog));

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.error()).isEqualTo(LocalLambda.DATA_LIMIT_EXCEEDED);
    // neither CommitSnapshot's Catch (States.ALL) nor ReleaseLeaseAfterFailure ran
    assertThat(result.lastState()).isEqualTo("CommitSnapshot");
    assertInvocations(1, 1, SHAPE.days(), 0, 1, 0);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1); // committed all the same
    assertThat(leaseItem()).doesNotContainKey("released_at");
    assertThat(jobLog()).isEmpty();
    assertThat(lambda.limitViolations())
        .singleElement()
        .asString()
        .startsWith(COMMIT_SNAPSHOT + ": ");

    // this test's point was the violation: do not fail it afterwards
    lambda.resetCounts();
    executions.clear();
  }

  @Test
  void theSameJobWithTheSummaryReleasesTheLease() {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(result.payloads().get("CommitSnapshot").get("task_result")).isLessThan(1024L);
    assertThat(leaseItem()).containsKey("released_at");
    assertThat(jobLog()).hasSize(1);
    assertThat(result.limitViolations()).isEqualTo(List.of());
  }
}
