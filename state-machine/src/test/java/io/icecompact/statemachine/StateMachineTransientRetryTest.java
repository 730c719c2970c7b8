package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.TransientException;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * {@code TransientException} (S3 SlowDown or 5xx, Glue or DynamoDB throttling, after the SDK's own
 * retries) met more often than the old three retries within ~14 s allowed, as under a sweep of many
 * jobs on one catalog: the idempotent steps retry it on the throttling schedule (12 retries, 5 s
 * doubling to 120 s, full jitter), so a finished rewrite still commits.
 */
class StateMachineTransientRetryTest extends StateMachineTestBase {

  @Test
  void aCommitterFailingTransientlyMoreThanThreeTimesStillCommitsOnce() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    // the first attempt commits and then loses its answer (the result write throttled); the next
    // four meet
    // throttling before they get anywhere; the sixth finds the job's snapshot by its stamp
    int failing = 5;
    CommitSnapshotHandler real = new CommitSnapshotHandler(leaseSteps.lease());
    AtomicInteger calls = new AtomicInteger();
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          int call = calls.incrementAndGet();
          if (call == 1) {
            real.handleRequest(in, new ByteArrayOutputStream(), context);
          }
          if (call <= failing) {
            throw new TransientException(
                "injected: 503 Slow Down after the SDK's retries (attempt " + call + ")", null);
          }
          real.handleRequest(in, out, context);
        });

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    assertThat(calls).hasValue(failing + 1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).as("one snapshot, committed once").hasSize(1);
    assertReplaceStampedWith(added.get(0), output.get("job_id").asText());
    assertThat(output.get("snapshot_ids")).as("output %s", output).isNotNull();
    assertThat(output.get("snapshot_ids").get(0).asLong()).isEqualTo(added.get(0).snapshotId());
    assertThat(LiveRows.multiset(table())).isEqualTo(rowsBefore);
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("COMMITTED");
    assertThat(leaseItem()).containsKey("released_at");
  }

  @Test
  void aPlannerFailingTransientlyMoreThanThreeTimesStillPlansAndTheJobCommits() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    int failing = 5;
    PlanRewriteHandler real = new PlanRewriteHandler();
    AtomicInteger calls = new AtomicInteger();
    lambda.register(
        PLAN_REWRITE,
        (in, out, context) -> {
          int call = calls.incrementAndGet();
          if (call <= failing) {
            throw new TransientException(
                "injected: Glue ThrottlingException after the SDK's retries (attempt " + call + ")",
                null);
          }
          real.handleRequest(in, out, context);
        });

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(calls).hasValue(failing + 1);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("COMMITTED");
  }
}
