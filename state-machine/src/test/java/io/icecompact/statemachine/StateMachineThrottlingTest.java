package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.RELEASE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Lambda refuses invocations above the function's or the account's free concurrency with {@code
 * TooManyRequestsException}; a burst of workers meets it first. Step Functions reports it as {@code
 * Lambda.TooManyRequestsException}, which the definition retries on its own, longer schedule (12
 * attempts) before any other retrier: with the shared one (3 attempts) a group throttled 4 times in
 * a row ended FAILED, and a throttled {@code RecordGroupFailure} failed the whole Map.
 */
class StateMachineThrottlingTest extends StateMachineTestBase {

  @Test
  void workersThrottledMoreOftenThanTheOtherRetriersAllowStillRewriteEveryGroup() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    // 13 over 4 groups: one group is refused at least 4 times, all the attempts the shared retrier
    // gives
    // (the old definition failed that group); the throttling retrier gives 13, and the Map starts
    // the 4
    // groups at once, so none meets all 13
    int throttles = 3 * GROUPS + 1;
    lambda.throttle(REWRITE_GROUP, throttles);

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    assertThat(output.get("failed_groups").asInt()).isZero();
    assertThat(lambda.throttles(REWRITE_GROUP)).isEqualTo(throttles);
    // the handler ran once per group: a throttled invocation never reaches it
    assertThat(lambda.invocations(REWRITE_GROUP)).isEqualTo(GROUPS);
    assertThat(lambda.invocations(RECORD_GROUP_FAILURE)).isZero();
    assertThat(LiveRows.multiset(table())).isEqualTo(rowsBefore);
  }

  @Test
  void aThrottledFailureRecordIsRetriedAndTheOtherGroupsStillCommit() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    String corrupt = liveTasks(table).get(0).file().location();
    String key = corrupt.substring(("s3://" + bucket + "/").length());
    byte[] garbage = new byte[(int) liveTasks(table).get(0).file().fileSizeInBytes()];
    new Random(7).nextBytes(garbage);
    s3.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(garbage));
    lambda.throttle(RECORD_GROUP_FAILURE, 6);

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS - 1);
    assertThat(output.get("failed_groups").asInt()).isEqualTo(1);
    assertThat(output.get("reason").asText())
        .contains(CorruptInputFileException.class.getSimpleName());
    assertThat(lambda.throttles(RECORD_GROUP_FAILURE)).isEqualTo(6);
    assertThat(lambda.invocations(RECORD_GROUP_FAILURE)).isEqualTo(1);
  }

  /**
   * Lambda's own 500 (ServiceException) in every Task state: AWS's recommended Lambda retry covers
   * each.
   */
  @Test
  void lambdaServiceErrorsInEveryStateAreRetriedAndTheJobCommits() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    for (String function :
        List.of(ACQUIRE_LEASE, PLAN_REWRITE, REWRITE_GROUP, COMMIT_SNAPSHOT, RELEASE_LEASE)) {
      lambda.serviceError(function, 2);
    }

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    // a refused invocation never reaches the handler: each ran as often as without the errors
    assertInvocations(1, 1, GROUPS, 0, 1, 1);
    assertThat(LiveRows.multiset(table())).isEqualTo(rowsBefore);
    assertThat(jobLog()).hasSize(1);
    assertThat(jobLog().get(0).status()).isEqualTo("COMMITTED");
  }
}
