package io.icecompact.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Against dynalite (a real DynamoDB API implementation, in a child process). */
class TableLeaseTest {
  static final String LEASES = "icecompact-leases";
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  static final Duration TTL = Duration.ofMinutes(15);

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
    table = "analytics.orders_" + (++tableCounter); // each test has its own lease item
  }

  private Map<String, AttributeValue> leaseItem() {
    return dynamo
        .client()
        .getItem(
            b ->
                b.tableName(LEASES)
                    .key(
                        Map.of(
                            "pk", AttributeValue.fromS(table), "sk", AttributeValue.fromS("lease")))
                    .consistentRead(true))
        .item();
  }

  @Test
  void acquiresAFreeTableWithToken1() {
    LeaseGrant grant = lease.acquire(table, "exec-a", TTL);

    long expires = T0.plus(TTL).toEpochMilli();
    assertThat(grant)
        .isEqualTo(new LeaseGrant(true, table, "exec-a", 1, expires, "exec-a", expires, null));
    Map<String, AttributeValue> item = leaseItem();
    assertThat(item.get("owner").s()).isEqualTo("exec-a");
    assertThat(item.get("token").n()).isEqualTo("1");
    assertThat(item.get("expires_at").n()).isEqualTo(Long.toString(expires));
    assertThat(item.get("acquired_at").n()).isEqualTo(Long.toString(T0.toEpochMilli()));
  }

  @Test
  void aSecondOwnerIsRefusedAndToldWhoHoldsItUntilWhen() {
    lease.acquire(table, "exec-a", TTL);
    clock.advance(Duration.ofMinutes(14));

    LeaseGrant refused = lease.acquire(table, "exec-b", TTL);

    assertThat(refused)
        .isEqualTo(
            new LeaseGrant(
                false, table, "exec-b", 0, 0, "exec-a", T0.plus(TTL).toEpochMilli(), null));
    assertThat(leaseItem().get("owner").s()).isEqualTo("exec-a");
    assertThat(leaseItem().get("token").n()).isEqualTo("1");
  }

  @Test
  void theSameOwnerReacquiringGetsTheSameTokenAndARenewedExpiry() {
    LeaseGrant first = lease.acquire(table, "exec-a", TTL);
    clock.advance(Duration.ofMinutes(5));

    LeaseGrant again = lease.acquire(table, "exec-a", TTL);

    assertThat(again.acquired()).isTrue();
    assertThat(again.token()).isEqualTo(first.token()).isEqualTo(1);
    assertThat(again.expiresAtMillis())
        .isEqualTo(T0.plus(Duration.ofMinutes(5)).plus(TTL).toEpochMilli());
    lease.checkHeld(table, "exec-a", 1);
  }

  @Test
  void afterExpiryAnotherOwnerTakesOverWithTokenPlusOneAndTheOldHolderLosesIt() {
    lease.acquire(table, "exec-a", TTL);
    lease.checkHeld(table, "exec-a", 1);

    clock.advance(TTL); // expires_at == now: still held
    assertThat(lease.acquire(table, "exec-b", TTL).acquired()).isFalse();

    clock.advance(Duration.ofMillis(1)); // now past expires_at
    LeaseGrant takeover = lease.acquire(table, "exec-b", TTL);

    long expires = T0.plus(TTL).plusMillis(1).plus(TTL).toEpochMilli();
    // exec-a never released its lease: the take-over says whose it was.
    assertThat(takeover)
        .isEqualTo(new LeaseGrant(true, table, "exec-b", 2, expires, "exec-b", expires, "exec-a"));
    lease.checkHeld(table, "exec-b", 2);
    assertThatThrownBy(() -> lease.checkHeld(table, "exec-a", 1))
        .isInstanceOf(LeaseLostException.class)
        .hasMessage(
            "lease on "
                + table
                + " lost: held by exec-b (token 2) until "
                + Instant.ofEpochMilli(expires)
                + "; exec-a (token 1) does not hold it");
    // The old holder's idempotent retry of acquire is refused now, and told who took over.
    assertThat(lease.acquire(table, "exec-a", TTL))
        .isEqualTo(new LeaseGrant(false, table, "exec-a", 0, 0, "exec-b", expires, null));
  }

  @Test
  void checkHeldFailsForAWrongTokenAndForALeaseNobodyHolds() {
    lease.acquire(table, "exec-a", TTL);

    assertThatThrownBy(() -> lease.checkHeld(table, "exec-a", 7))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("held by exec-a (token 1)");
    assertThatThrownBy(() -> lease.checkHeld(table, "exec-b", 1))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("held by exec-a (token 1)");
    assertThatThrownBy(() -> lease.checkHeld("analytics.never_leased", "exec-a", 1))
        .isInstanceOf(LeaseLostException.class)
        .hasMessage(
            "lease on analytics.never_leased lost: nobody holds it; exec-a (token 1) does not");

    // another owner's lease that expired is nobody's: a caller that never held it does not get it
    // here
    clock.advance(TTL.plusMillis(1));
    assertThatThrownBy(() -> lease.checkHeld(table, "exec-b", 1))
        .isInstanceOf(LeaseLostException.class)
        .hasMessage(
            "lease on "
                + table
                + " lost: nobody holds it, the lease of exec-a (token 1) expired at "
                + T0.plus(TTL)
                + " (now "
                + T0.plus(TTL).plusMillis(1)
                + "); exec-b (token 1) does not hold it");
  }

  @Test
  void aJobLongerThanItsLeaseKeepsItWhenNobodyTookItOverAndTheCheckExtendsIt() {
    lease.acquire(table, "exec-a", TTL);
    // 1,000 groups in 25 waves: hours past the lease's expiry, and nobody asked for the table
    // meanwhile
    clock.advance(Duration.ofHours(3));

    lease.checkHeld(table, "exec-a", 1);

    Instant now = T0.plus(Duration.ofHours(3));
    Map<String, AttributeValue> item = leaseItem();
    assertThat(item.get("token").n()).as("the same lease: no take-over happened").isEqualTo("1");
    assertThat(item.get("owner").s()).isEqualTo("exec-a");
    assertThat(Long.parseLong(item.get("expires_at").n()))
        .as("held for the commit that follows the check")
        .isEqualTo(now.plus(TableLease.CHANGE_WINDOW).toEpochMilli());
    // ...so nobody can take it over while the job changes the table
    assertThat(lease.acquire(table, "exec-b", TTL).acquired()).isFalse();
    // holding for less than it already lasts writes nothing
    clock.advance(Duration.ofMinutes(1));
    lease.holdFor(table, "exec-a", 1, Duration.ofMinutes(5));
    assertThat(leaseItem()).isEqualTo(item);
    // holdFor lasts as long as asked
    lease.holdFor(table, "exec-a", 1, Duration.ofHours(2));
    assertThat(Long.parseLong(leaseItem().get("expires_at").n()))
        .isEqualTo(now.plus(Duration.ofMinutes(1)).plus(Duration.ofHours(2)).toEpochMilli());
  }

  @Test
  void aJobWhoseExpiredLeaseAnotherTookAndReleasedHasLostItForGood() {
    lease.acquire(table, "exec-a", TTL);
    clock.advance(TTL.plusMillis(1));
    LeaseGrant takeover = lease.acquire(table, "exec-b", TTL);
    clock.advance(Duration.ofMinutes(1));
    assertThat(lease.release(table, "exec-b", takeover.token())).isTrue();

    // the item is free again, but it is no longer exec-a's lease: exec-b may have changed the table
    assertThatThrownBy(() -> lease.checkHeld(table, "exec-a", 1))
        .isInstanceOf(LeaseLostException.class)
        .hasMessage(
            "lease on "
                + table
                + " lost: nobody holds it, exec-b (token 2) released it at "
                + T0.plus(TTL).plusMillis(1).plus(Duration.ofMinutes(1))
                + "; exec-a (token 1) does not hold it");
    assertThat(leaseItem()).containsKey("released_at");
  }

  @Test
  void aStaleReleaseReturnsFalseAndTheNewHolderKeepsTheLease() {
    lease.acquire(table, "exec-a", TTL);
    clock.advance(TTL.plusSeconds(1));
    LeaseGrant takeover = lease.acquire(table, "exec-b", TTL);
    Map<String, AttributeValue> before = leaseItem();

    assertThat(lease.release(table, "exec-a", 1)).isFalse(); // stale owner and token
    assertThat(lease.release(table, "exec-b", 1)).isFalse(); // right owner, stale token
    assertThat(lease.release(table, "exec-a", 2)).isFalse(); // stale owner, current token

    assertThat(leaseItem()).isEqualTo(before);
    lease.checkHeld(table, "exec-b", takeover.token());
    assertThat(lease.acquire(table, "exec-c", TTL).heldBy()).isEqualTo("exec-b");
  }

  @Test
  void releaseByTheHolderFreesTheLeaseAndTheNextAcquisitionGetsTheNextToken() {
    lease.acquire(table, "exec-a", TTL);
    clock.advance(Duration.ofMinutes(1));

    assertThat(lease.release(table, "exec-a", 1)).isTrue();
    assertThat(lease.release(table, "exec-a", 1)).isFalse(); // already released

    assertThatThrownBy(() -> lease.checkHeld(table, "exec-a", 1))
        .isInstanceOf(LeaseLostException.class)
        .hasMessage(
            "lease on "
                + table
                + " lost: nobody holds it, exec-a (token 1) released it at "
                + T0.plus(Duration.ofMinutes(1))
                + "; exec-a (token 1) does not hold it");
    LeaseGrant next =
        lease.acquire(table, "exec-b", TTL); // before the old expiry: the lease is free
    assertThat(next.acquired()).isTrue();
    assertThat(next.token()).isEqualTo(2);
    assertThat(next.tookOverFrom()).as("a released lease is free, not taken over").isNull();
    // The released owner acquiring again is a new acquisition too, not an idempotent retry.
    assertThat(lease.release(table, "exec-b", 2)).isTrue();
    LeaseGrant again = lease.acquire(table, "exec-a", TTL);
    assertThat(again.acquired()).isTrue();
    assertThat(again.token()).isEqualTo(3);
    assertThat(leaseItem()).doesNotContainKey("released_at");
  }

  @Test
  void twoOwnersRacingForATableExactlyOneWins() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        String raced = table + "_race_" + round;
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<LeaseGrant>> grants = new ArrayList<>();
        for (String owner : List.of("exec-x", "exec-y")) {
          grants.add(
              threads.submit(
                  () -> {
                    start.await();
                    return lease.acquire(raced, owner, TTL);
                  }));
        }
        LeaseGrant x = grants.get(0).get();
        LeaseGrant y = grants.get(1).get();

        assertThat(x.acquired() ^ y.acquired()).as("round %d: %s / %s", round, x, y).isTrue();
        LeaseGrant winner = x.acquired() ? x : y;
        LeaseGrant loser = x.acquired() ? y : x;
        assertThat(winner.token()).isEqualTo(1);
        assertThat(loser.heldBy()).isEqualTo(winner.owner());
        assertThat(loser.heldUntilMillis()).isEqualTo(winner.expiresAtMillis());
        lease.checkHeld(raced, winner.owner(), 1);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void rejectsBlankNamesAndNonPositiveTtls() {
    assertThatThrownBy(() -> lease.acquire(" ", "exec-a", TTL))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lease.acquire(table, "", TTL))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lease.acquire(table, "exec-a", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
