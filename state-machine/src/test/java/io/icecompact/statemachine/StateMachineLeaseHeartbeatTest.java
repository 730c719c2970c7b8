package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.CARE_FOR_TABLE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.RELEASE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.care.lambda.CareForTableHandler;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.lambda.AcquireLeaseHandler;
import io.icecompact.lease.lambda.ReleaseLeaseHandler;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.MutableClock;
import io.icecompact.worker.lambda.LeaseHeartbeat;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A job that runs longer than its lease's TTL (issue 28, finding 1): each group's worker extends
 * the lease, so nobody takes the table over while groups run and the commit finds the lease still
 * its own; a job whose lease another execution did take over stops rewriting at its next group.
 * Time is a clock the lease steps share and each group advances by 20 minutes (a wave), against a
 * TTL of one minute.
 */
class StateMachineLeaseHeartbeatTest extends StateMachineTestBase {
  static final Duration WAVE = Duration.ofMinutes(20);

  private MutableClock clock;
  private LeaseSteps steps;

  @BeforeEach
  void leaseStepsOnAClock() {
    clock = new MutableClock(Instant.now());
    steps = LeaseSteps.of(dynamo.client(), leaseTable, clock);
    lambda.register(ACQUIRE_LEASE, new AcquireLeaseHandler(steps));
    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(steps.lease()));
    lambda.register(RELEASE_LEASE, new ReleaseLeaseHandler(steps));
    lambda.register(CARE_FOR_TABLE, new CareForTableHandler(steps.lease()));
  }

  private Map<String, Object> longJobInput(Map<String, String> catalog) {
    Map<String, Object> input = input(catalog);
    input.put("lease_ttl_seconds", 60);
    input.put("max_concurrency", 1); // waves one after another
    return input;
  }

  @Test
  void aJobLongerThanItsLeaseKeepsTheTableWhileItsGroupsRunAndCommits() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    RewriteGroupHandler worker =
        new RewriteGroupHandler(DeploymentScope.unrestricted(), new LeaseHeartbeat(steps.lease()));
    List<LeaseGrant> rivals = new CopyOnWriteArrayList<>();
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          clock.advance(WAVE); // the lease's 60 s TTL lapsed long ago
          worker.handleRequest(in, out, context);
          // another execution (a schedule) asks for the table between two waves
          rivals.add(steps.lease().acquire(TABLE, "rival-execution", Duration.ofHours(1)));
        });

    ExecutionResult result = run(longJobInput(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    String owner = executionIds().get(0);
    assertThat(rivals).hasSize(GROUPS);
    assertThat(rivals)
        .allSatisfy(
            rival -> {
              assertThat(rival.acquired()).as("a rival between waves").isFalse();
              assertThat(rival.heldBy()).isEqualTo(owner);
            });
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).isEqualTo(owner);
    assertThat(number(lease, "token")).as("never taken over").isEqualTo(1);
    assertThat(lease).containsKey("released_at");
  }

  @Test
  void aJobWhoseLeaseWasTakenOverStopsRewritingAndCommitsNothing() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    RewriteGroupHandler worker =
        new RewriteGroupHandler(DeploymentScope.unrestricted(), new LeaseHeartbeat(steps.lease()));
    List<LeaseGrant> takeovers = new CopyOnWriteArrayList<>();
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          if (lambda.invocations(REWRITE_GROUP) == 2) {
            // the execution paused (throttled, or its Map waited) past its lease, and a rival took
            // the table
            clock.advance(LeaseHeartbeat.HOLD.plus(WAVE));
            takeovers.add(steps.lease().acquire(TABLE, "rival-execution", Duration.ofHours(1)));
          }
          worker.handleRequest(in, out, context);
        });

    ExecutionResult result = run(longJobInput(catalog));

    assertThat(takeovers).singleElement().satisfies(grant -> assertThat(grant.acquired()).isTrue());
    assertThat(lambda.invocations(CompactionDefinition.RECORD_GROUP_FAILURE))
        .as("every group from the take-over on fails at its heartbeat")
        .isEqualTo(GROUPS - 1);
    assertThat(String.join("\n", lambda.payloads(CompactionDefinition.RECORD_GROUP_FAILURE)))
        .contains("LeaseLostException");
    assertThat(newSnapshots(table, snapshotsBefore))
        .as("nothing committed: %s", result.states())
        .isEmpty();
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).as("the rival keeps the table").isEqualTo("rival-execution");
    assertThat(number(lease, "token")).isEqualTo(2);
    assertThat(lease).doesNotContainKey("released_at");
  }
}
