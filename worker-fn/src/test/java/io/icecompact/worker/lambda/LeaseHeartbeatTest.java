package io.icecompact.worker.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseLostException;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.lease.TableLease;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.MutableClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Against dynalite (a real DynamoDB API implementation, in a child process). */
class LeaseHeartbeatTest {
  static final String LEASES = "icecompact-leases";
  static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
  static final Duration TTL = Duration.ofHours(2);

  private static LocalDynamoDb dynamo;
  private static int tableCounter;

  private MutableClock clock;
  private TableLease lease;
  private String table;

  @BeforeAll
  static void startDynamo() {
    dynamo = new LocalDynamoDb();
    LeaseTableSchema.create(dynamo.client(), LEASES);
  }

  @AfterAll
  static void stopDynamo() {
    dynamo.close();
  }

  @BeforeEach
  void newTable() {
    clock = new MutableClock(T0);
    lease = new TableLease(dynamo.client(), LEASES, clock);
    table = "analytics.events_" + (++tableCounter);
  }

  private long expiresAt() {
    Map<String, AttributeValue> item =
        dynamo
            .client()
            .getItem(
                b ->
                    b.tableName(LEASES)
                        .key(
                            Map.of(
                                "pk",
                                AttributeValue.fromS(table),
                                "sk",
                                AttributeValue.fromS("lease")))
                        .consistentRead(true))
            .item();
    return Long.parseLong(item.get("expires_at").n());
  }

  @Test
  void groupsStartedPastTheTtlKeepTheLeaseSoNobodyTakesTheTableOver() {
    LeaseGrant grant = lease.acquire(table, "exec-a", TTL);
    LeaseHeartbeat heartbeat = new LeaseHeartbeat(lease);

    // waves of groups for 5 hours, one starting every 10 minutes: the 2 h TTL alone would have
    // lapsed
    for (int minute = 10; minute <= 300; minute += 10) {
      clock.advance(Duration.ofMinutes(10));
      heartbeat.beat(grant);
      assertThat(lease.acquire(table, "exec-b", TTL).acquired()).as("minute %d", minute).isFalse();
    }
    assertThat(expiresAt())
        .isEqualTo(T0.plus(Duration.ofMinutes(300)).plus(LeaseHeartbeat.HOLD).toEpochMilli());

    // the job stops (its execution stopped): the table is free HOLD after its last group started
    clock.advance(LeaseHeartbeat.HOLD.plusMillis(1));
    LeaseGrant next = lease.acquire(table, "exec-b", TTL);
    assertThat(next.acquired()).isTrue();
    assertThat(next.tookOverFrom()).isEqualTo("exec-a");
  }

  @Test
  void aGroupOfAJobWhoseLeaseWasTakenOverFailsBeforeItReadsAnything() {
    LeaseGrant grant = lease.acquire(table, "exec-a", TTL);
    clock.advance(TTL.plusSeconds(1));
    LeaseGrant takeover = lease.acquire(table, "exec-b", TTL);

    assertThatThrownBy(() -> new LeaseHeartbeat(lease).beat(grant))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("held by exec-b (token " + takeover.token() + ")");
    assertThat(expiresAt())
        .as("the new holder's lease is untouched")
        .isEqualTo(takeover.expiresAtMillis());
  }

  @Test
  void withoutALeaseTableOrAGrantThereIsNoBeat() {
    LeaseGrant grant = lease.acquire(table, "exec-a", TTL);
    long before = expiresAt();
    clock.advance(Duration.ofHours(1));

    LeaseHeartbeat.none().beat(grant);
    new LeaseHeartbeat(lease).beat(null);

    assertThat(expiresAt()).isEqualTo(before);
  }

  @Test
  void aDynamoDbOutageSkipsTheBeatAndTheGroupGoesOn() {
    LeaseGrant grant = lease.acquire(table, "exec-a", TTL);
    DynamoDbClient unreachable =
        DynamoDbClient.builder()
            .endpointOverride(URI.create("http://127.0.0.1:9")) // discard port: connection refused
            .region(Region.of(LocalDynamoDb.REGION))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "y")))
            .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD))
            .build();

    new LeaseHeartbeat(new TableLease(unreachable, LEASES, clock)).beat(grant); // no exception

    assertThat(expiresAt()).isEqualTo(grant.expiresAtMillis());
  }
}
