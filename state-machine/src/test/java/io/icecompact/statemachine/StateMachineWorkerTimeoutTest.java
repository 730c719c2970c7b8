package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A worker Lambda that hits its 15-minute timeout, on the real definition: Lambda answers {@code
 * Sandbox.Timedout} (not retried: the same group would time out again), the Map records the group's
 * failure and the job goes on. What the worker wrote before it was stopped decides the rest: a
 * stored result is validated and committed like any other; without one, the group fails and the
 * files its attempt wrote, which it never reported, are deleted by the committer, found through the
 * entries the worker recorded before creating each file.
 */
class StateMachineWorkerTimeoutTest extends StateMachineTestBase {
  private static final int SLOW = 1;

  /** The invocation of group {@link #SLOW}'s first attempt. */
  private static boolean slowGroup(String payload) {
    return tree(payload).get("group").get("group_index").asInt() == SLOW;
  }

  @Test
  void aWorkerStoppedBeforeStoringItsResultFailsItsGroupAndTheCommitterDeletesItsOutputs()
      throws Exception {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    // The slow group's worker writes its output files and then is stopped, as a Lambda past its
    // timeout is:
    // here S3 refuses its result and the deletes of its outputs while it runs (it cannot clean up,
    // as a
    // killed one cannot), and Lambda answers Sandbox.Timedout for it.
    S3FaultRule noResult =
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("PUT")
            .onKeys(String.format("/results/group-%05d\\.json$", SLOW));
    S3FaultRule noCleanup =
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("DELETE")
            .onKeys(String.format("/data/.*/%05d-1-job-[^/]*\\.parquet$", SLOW));
    RewriteGroupHandler real = rewriteGroupHandler();
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          byte[] payload = in.readAllBytes();
          boolean slow = slowGroup(new String(payload, StandardCharsets.UTF_8));
          if (slow) {
            faults.inject(noResult).inject(noCleanup);
          }
          try {
            real.handleRequest(new ByteArrayInputStream(payload), out, context);
          } finally {
            if (slow) {
              faults.remove(noResult).remove(noCleanup);
            }
          }
        });
    lambda.timeOut(REWRITE_GROUP, StateMachineWorkerTimeoutTest::slowGroup, 1);

    ExecutionResult result = run(input(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS - 1);
    assertThat(output.get("failed_groups").asInt()).isEqualTo(1);
    JsonNode slow = group(wholeResult(output), SLOW);
    assertJobStatus(slow, "FAILED");
    assertThat(slow.get("reason").asText())
        .isEqualTo(
            "Sandbox.Timedout: RequestId: "
                + requestIdOf(SLOW)
                + " Error: Task timed out after 900.00 seconds");
    assertInvocations(1, 1, GROUPS, 1, 1, 1);

    // the stopped attempt did write, and could not delete: it recorded its outputs, the committer
    // deleted them
    assertThat(faults.injected()).anyMatch(f -> f.method().equals("DELETE"));
    String attemptFiles = String.format("%05d-1-%s-", SLOW, jobId);
    assertThat(keys("/outputs/group-" + String.format("%05d", SLOW) + ".attempt-1/"))
        .as("outputs the stopped attempt recorded")
        .isNotEmpty()
        .allSatisfy(entry -> assertThat(fileName(entry)).startsWith("output-" + attemptFiles));
    assertThat(keys("/" + attemptFiles)).as("its files left in the table's data folder").isEmpty();

    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("PARTIAL");
    assertThat(leaseItem()).containsKey("released_at");
  }

  @Test
  void aWorkerStoppedAfterStoringItsResultHasItsGroupCommitted() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    lambda.timeOut(REWRITE_GROUP, StateMachineWorkerTimeoutTest::slowGroup, 1);

    ExecutionResult result = run(input(catalog));

    // the Map recorded a failure, but the result the worker stored is complete and checks out:
    // committed
    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    assertThat(output.get("failed_groups").asInt()).isZero();
    assertThat(payloads(RECORD_GROUP_FAILURE)).hasSize(1);
    assertThat(payloads(RECORD_GROUP_FAILURE).get(0).get("error").get("Error").asText())
        .isEqualTo("Sandbox.Timedout");
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertThat(added.get(0).summary().get("deleted-data-files"))
        .isEqualTo(Integer.toString(INPUT_FILES));
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
  }

  private static JsonNode group(JsonNode wholeResult, int index) {
    for (JsonNode group : wholeResult.get("groups")) {
      if (group.get("group_index").asInt() == index) {
        return group;
      }
    }
    throw new AssertionError("no group " + index + " in " + wholeResult);
  }

  /** The request id Lambda gave the slow group's invocation, as RecordGroupFailure received it. */
  private static String requestIdOf(int groupIndex) {
    JsonNode recorded = payloads(RECORD_GROUP_FAILURE).get(0);
    assertThat(recorded.get("group").get("group_index").asInt()).isEqualTo(groupIndex);
    String message = tree(recorded.get("error").get("Cause").asText()).get("errorMessage").asText();
    return message.substring("RequestId: ".length(), message.indexOf(' ', "RequestId: ".length()));
  }

  private List<String> keys(String containing) {
    List<String> keys = new ArrayList<>();
    for (S3Object object : s3.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
      if (object.key().contains(containing)) {
        keys.add(object.key());
      }
    }
    return keys;
  }
}
