package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.TransientException;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.lambda.AcquireLeaseHandler;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Scenario 4: one execution per table at a time, and the lease of a crashed execution is taken
 * over.
 */
class StateMachineLeaseTest extends StateMachineTestBase {

  @Test
  void ofTwoExecutionsStartedTogetherOneCompactsAndTheOtherEndsLeaseHeldWithoutPlanning()
      throws Exception {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    // Both executions take their turn at the lease before either plans, whatever their timing.
    CountDownLatch bothAsked = new CountDownLatch(2);
    AcquireLeaseHandler acquire = new AcquireLeaseHandler(leaseSteps);
    lambda.register(
        ACQUIRE_LEASE,
        (in, out, context) -> {
          try {
            acquire.handleRequest(in, out, context);
          } finally {
            bothAsked.countDown();
          }
        });
    PlanRewriteHandler plan = new PlanRewriteHandler();
    lambda.register(
        PLAN_REWRITE,
        (in, out, context) -> {
          try {
            if (!bothAsked.await(60, TimeUnit.SECONDS)) {
              throw new IllegalStateException("the second execution never asked for the lease");
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
          plan.handleRequest(in, out, context);
        });

    String input = json(input(catalog));
    ExecutorService executions = Executors.newFixedThreadPool(2);
    List<ExecutionResult> results;
    try {
      Future<ExecutionResult> first = executions.submit(() -> run(input));
      Future<ExecutionResult> second = executions.submit(() -> run(input));
      results = List.of(first.get(3, TimeUnit.MINUTES), second.get(3, TimeUnit.MINUTES));
    } finally {
      executions.shutdownNow();
    }

    List<ExecutionResult> compacted =
        results.stream().filter(r -> "Done".equals(r.lastState())).toList();
    List<ExecutionResult> held =
        results.stream().filter(r -> "LeaseHeld".equals(r.lastState())).toList();
    assertThat(compacted).as("%s", results).hasSize(1);
    assertThat(held).as("%s", results).hasSize(1);
    assertSucceeded(compacted.get(0), COMPACTED_PATH);
    assertSucceeded(held.get(0), List.of("AcquireLease", "LeaseAcquired?", "LeaseHeld"));

    List<String> executionIds = executionIds();
    assertThat(executionIds).hasSize(2).doesNotHaveDuplicates();
    JsonNode heldOutput = held.get(0).outputJson();
    String loser = heldOutput.get("owner").asText();
    String winner = heldOutput.get("held_by").asText();
    assertThat(executionIds).containsExactlyInAnyOrder(loser, winner);
    assertThat(heldOutput.get("acquired").asBoolean()).isFalse();
    assertThat(heldOutput.get("table").asText()).isEqualTo(TABLE);
    assertThat(heldOutput.get("token").asLong()).isZero();
    assertThat(heldOutput.get("held_until_millis").asLong())
        .isGreaterThan(System.currentTimeMillis());

    JsonNode output = compacted.get(0).outputJson();
    assertJobStatus(output, "COMMITTED");
    String jobId = output.get("job_id").asText();
    assertInvocations(2, 1, GROUPS, 0, 1, 1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertThat(jobLog()).extracting(JobLogEntry::jobId).containsExactly(jobId);
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).isEqualTo(winner);
    assertThat(number(lease, "token")).isEqualTo(1);
    assertThat(lease).containsKey("released_at");
  }

  @Test
  void theExpiredLeaseOfACrashedExecutionIsTakenOver() throws Exception {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    LeaseGrant crashed = leaseSteps.lease().acquire(TABLE, "crashed-exec", Duration.ofMillis(1));
    assertThat(crashed.acquired()).isTrue();
    assertThat(crashed.token()).isEqualTo(1);
    Thread.sleep(20); // its lease expires; it never releases it

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    String jobId = output.get("job_id").asText();
    JsonNode grant = payloads(CompactionDefinition.COMMIT_SNAPSHOT).get(0).get("lease");
    assertThat(grant.get("acquired").asBoolean()).isTrue();
    assertThat(grant.get("owner").asText()).isEqualTo(executionIds().get(0));
    assertThat(grant.get("token").asLong())
        .isEqualTo(2); // a new acquisition fences the crashed one
    assertInvocations(1, 1, GROUPS, 0, 1, 1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertThat(jobLog()).extracting(JobLogEntry::jobId).containsExactly(jobId);
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).isEqualTo(executionIds().get(0));
    assertThat(number(lease, "token")).isEqualTo(2);
    assertThat(lease).containsKey("released_at");
  }

  /**
   * AcquireLease writes the lease, then its answer is lost (a timeout, or an error after the
   * write): the retry by the same execution gets the same lease back (same owner, same token)
   * instead of finding it held and ending LeaseHeld, or failing in CouldNotStart with the lease
   * held until its TTL.
   */
  @Test
  void anAcquisitionWhoseAnswerWasLostIsRetriedAndGetsTheSameLease() {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);
    AcquireLeaseHandler real = new AcquireLeaseHandler(leaseSteps);
    AtomicInteger calls = new AtomicInteger();
    lambda.register(
        ACQUIRE_LEASE,
        (in, out, context) -> {
          if (calls.incrementAndGet() == 1) {
            real.handleRequest(in, new ByteArrayOutputStream(), context);
            throw new TransientException("injected: the answer was lost after the write", null);
          }
          real.handleRequest(in, out, context);
        });

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(calls).hasValue(2);
    assertThat(executionIds()).hasSize(2).containsOnly(executionIds().get(0));
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(number(lease, "token")).as("one acquisition, not two").isEqualTo(1);
    assertThat(lease).containsKey("released_at");
  }

  /**
   * The lease function's timeout equals the state's TimeoutSeconds (60 s), so Lambda may report the
   * timeout before Step Functions does: as {@code Sandbox.Timedout}, or as {@code Lambda.Unknown}.
   * The write had landed; the retry by the same execution gets the same lease back and the job
   * runs, where the execution used to end in CouldNotStart with the lease held until its TTL.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"Sandbox.Timedout", "Lambda.Unknown"})
  void anAcquisitionThatLambdaTimedOutAfterItsWriteIsRetriedAndTheLeaseIsTakenOnce(String error) {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    // the handler runs (the lease is written), then Lambda answers with the timeout instead of the
    // grant
    if (error.equals("Sandbox.Timedout")) {
      lambda.timeOut(ACQUIRE_LEASE, 1);
    } else {
      lambda.unknownError(ACQUIRE_LEASE, 1);
    }

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertInvocations(2, 1, GROUPS, 0, 1, 1);
    assertThat(executionIds()).hasSize(2).containsOnly(executionIds().get(0));
    JsonNode grant = payloads(CompactionDefinition.COMMIT_SNAPSHOT).get(0).get("lease");
    assertThat(grant.get("token").asLong()).isEqualTo(1);
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).isEqualTo(executionIds().get(0));
    assertThat(number(lease, "token")).as("one acquisition, not two").isEqualTo(1);
    assertThat(lease).containsKey("released_at");
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), output.get("job_id").asText());
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("COMMITTED");
  }
}
