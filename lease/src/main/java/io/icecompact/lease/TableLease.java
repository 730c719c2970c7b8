package io.icecompact.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * At most one compaction job per Iceberg table at a time: a lease in DynamoDB with a fencing token.
 *
 * <p>The lease is the item {@code pk=<table>, sk="lease"} with attributes {@code owner}, {@code
 * token} (number), {@code expires_at} (epoch millis), {@code acquired_at} (epoch millis of the
 * owner's latest acquire) and {@code released_at} once released. Expiry is decided by comparing
 * {@code expires_at} with this instance's clock inside the condition of each write; DynamoDB's TTL
 * deletion plays no part (it may run days late, and deleting the item would reset the token).
 *
 * <p>{@link #acquire} is at most two conditional UpdateItems, each atomic: the recorded owner
 * asking again while its lease is not released renews it with the same token (an idempotent retry
 * of the acquire step); otherwise a lease that is absent, expired ({@code expires_at < now}) or
 * released is taken with {@code token + 1}. Two owners racing for a free lease cannot both win: the
 * first take-over makes the condition false for the second. The token never goes back (release
 * keeps it).
 *
 * <p>The token fences stale holders: a job checks {@link #checkHeld} with its token right before it
 * changes the table (the Iceberg commit), and a job whose lease expired and was taken over fails
 * that check even if it still thinks it owns the table. A lease that expired under a long job and
 * that nobody took over is still the job's: the check extends it ({@link #holdFor}).
 */
public final class TableLease {
  static final String LEASE_SK = "lease";
  static final String OWNER = "owner";
  static final String TOKEN = "token";
  static final String EXPIRES_AT = "expires_at";
  static final String ACQUIRED_AT = "acquired_at";
  static final String RELEASED_AT = "released_at";

  private final DynamoDbClient dynamo;
  private final String tableName;
  private final Clock clock;

  /**
   * @param dynamo a client; its HTTP client and retries are the caller's
   * @param tableName the DynamoDB table (see {@link LeaseTableSchema})
   * @param clock decides when a lease has expired (leases compare {@code expires_at} with it)
   */
  public TableLease(DynamoDbClient dynamo, String tableName, Clock clock) {
    this.dynamo = Objects.requireNonNull(dynamo, "dynamo");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Acquires the lease on {@code table} for {@code owner} until now + {@code ttl}, or tells who
   * holds it.
   *
   * @param table the Iceberg table identifier, e.g. {@code analytics.orders}
   * @param owner who asks, e.g. the Step Functions execution id; the same owner asking again while
   *     it holds the lease gets the same token and a renewed expiry
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   * @throws LeaseStoreException when DynamoDB refuses the request otherwise
   */
  public LeaseGrant acquire(String table, String owner, Duration ttl) {
    requireText(table, "table");
    requireText(owner, "owner");
    if (ttl == null || ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive: " + ttl);
    }
    for (int attempt = 1; ; attempt++) {
      long now = clock.millis();
      Map<String, AttributeValue> holder;
      try {
        return tryAcquire(table, owner, now, now + ttl.toMillis());
      } catch (ConditionalCheckFailedException refused) {
        holder = itemThatRefused(refused, table, owner);
      } catch (SdkException e) {
        throw DynamoFailures.classify(e, "acquiring the lease on " + table + " for " + owner);
      }
      // Our own concurrent retry may have won the take-over: then the lease is ours.
      if (holder != null
          && isHeld(holder, clock.millis())
          && owner.equals(stringOf(holder, OWNER))) {
        return LeaseGrant.acquired(
            table, owner, longOf(holder, TOKEN), longOf(holder, EXPIRES_AT), null);
      }
      // A lease read after the refusal may have been released or expired meanwhile: then try again.
      if (holder != null && isHeld(holder, clock.millis()) || attempt == 3) {
        return LeaseGrant.refused(
            table,
            owner,
            holder == null ? null : stringOf(holder, OWNER),
            holder == null ? 0 : longOf(holder, EXPIRES_AT));
      }
    }
  }

  /**
   * Two conditional writes, each atomic: the owner renewing its own unreleased lease keeps its
   * token; otherwise a free (absent, expired or released) lease is taken with token + 1. Of several
   * callers racing for a free lease, exactly one take-over condition holds. The take-over returns
   * the item as it was before, to tell an expired lease (whose owner never released it) from an
   * absent or released one.
   */
  private LeaseGrant tryAcquire(String table, String owner, long now, long expiresAt) {
    try {
      Map<String, AttributeValue> renewed =
          update(
              table,
              "SET #expires = :expires, #acquired = :now",
              "#owner = :owner AND attribute_not_exists(#released)",
              Map.of(
                  "#owner",
                  OWNER,
                  "#expires",
                  EXPIRES_AT,
                  "#acquired",
                  ACQUIRED_AT,
                  "#released",
                  RELEASED_AT),
              Map.of(
                  ":owner",
                  AttributeValue.fromS(owner),
                  ":expires",
                  number(expiresAt),
                  ":now",
                  number(now)),
              ReturnValue.ALL_NEW);
      return LeaseGrant.acquired(
          table, owner, longOf(renewed, TOKEN), longOf(renewed, EXPIRES_AT), null);
    } catch (ConditionalCheckFailedException notOurs) {
      Map<String, AttributeValue> before =
          update(
              table,
              "SET #owner = :owner, #expires = :expires, #acquired = :now, "
                  + "#token = if_not_exists(#token, :zero) + :one REMOVE #released",
              "attribute_not_exists(#pk) OR #expires < :now OR attribute_exists(#released)",
              Map.of(
                  "#pk", LeaseTableSchema.PK,
                  "#owner", OWNER,
                  "#expires", EXPIRES_AT,
                  "#acquired", ACQUIRED_AT,
                  "#token", TOKEN,
                  "#released", RELEASED_AT),
              Map.of(
                  ":owner", AttributeValue.fromS(owner),
                  ":expires", number(expiresAt),
                  ":now", number(now),
                  ":zero", number(0),
                  ":one", number(1)),
              ReturnValue.ALL_OLD);
      boolean expiredUnreleased =
          before != null && before.containsKey(OWNER) && !before.containsKey(RELEASED_AT);
      return LeaseGrant.acquired(
          table,
          owner,
          (before == null ? 0 : longOf(before, TOKEN)) + 1,
          expiresAt,
          expiredUnreleased ? stringOf(before, OWNER) : null);
    }
  }

  private Map<String, AttributeValue> update(
      String table,
      String updateExpression,
      String condition,
      Map<String, String> names,
      Map<String, AttributeValue> values,
      ReturnValue returnValue) {
    return dynamo
        .updateItem(
            b ->
                b.tableName(tableName)
                    .key(key(table))
                    .updateExpression(updateExpression)
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .returnValues(returnValue)
                    .returnValuesOnConditionCheckFailure(
                        ReturnValuesOnConditionCheckFailure.ALL_OLD))
        .attributes();
  }

  /** Whether the lease item is held by someone at {@code now}: not released, not expired. */
  private static boolean isHeld(Map<String, AttributeValue> item, long now) {
    return item.containsKey(OWNER)
        && !item.containsKey(RELEASED_AT)
        && longOf(item, EXPIRES_AT) >= now;
  }

  /**
   * How long {@link #checkHeld} makes the lease last from the check on: a step that checks right
   * before it changes the table runs in one Lambda invocation, which cannot outlast 15 minutes.
   */
  public static final Duration CHANGE_WINDOW = Duration.ofMinutes(15);

  /**
   * Returns normally when {@code owner} holds the lease on {@code table} with {@code token}, having
   * made it last at least {@link #CHANGE_WINDOW} from now; see {@link #holdFor}.
   *
   * @throws LeaseLostException when the lease was released or taken over, saying who holds it now
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   */
  public void checkHeld(String table, String owner, long token) {
    holdFor(table, owner, token, CHANGE_WINDOW);
  }

  /**
   * Makes {@code owner}'s lease on {@code table} with {@code token} last at least {@code duration}
   * from now (one conditional write; nothing is written when it already does), or says it is lost.
   *
   * <p>A lease that expired while its job ran, and that nobody took over, is still the job's: its
   * item has the same owner and token, and it is not released. Taking an expired lease over, or
   * releasing it, changes the token or marks it released, so no other job can have held the table
   * in between, and the job keeps it. A job longer than its lease's TTL (thousands of groups in
   * waves) must not fail at its commit for that alone; a job whose lease another took over does
   * fail here, before it changes the table.
   *
   * @throws LeaseLostException when the lease was released or taken over, saying who holds it now
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   */
  public void holdFor(String table, String owner, long token, Duration duration) {
    requireText(table, "table");
    requireText(owner, "owner");
    long until = clock.millis() + duration.toMillis();
    Map<String, AttributeValue> item;
    try {
      update(
          table,
          "SET #expires = :until",
          "#owner = :owner AND #token = :token AND attribute_not_exists(#released) AND #expires < :until",
          Map.of(
              "#owner", OWNER, "#token", TOKEN, "#expires", EXPIRES_AT, "#released", RELEASED_AT),
          Map.of(
              ":owner",
              AttributeValue.fromS(owner),
              ":token",
              number(token),
              ":until",
              number(until)),
          ReturnValue.NONE);
      return;
    } catch (ConditionalCheckFailedException refused) {
      item = itemThatRefused(refused, table, owner);
    } catch (SdkException e) {
      throw DynamoFailures.classify(e, "holding the lease on " + table + " for " + owner);
    }
    String caller = owner + " (token " + token + ")";
    if (item == null || !item.containsKey(OWNER)) {
      throw new LeaseLostException(
          "lease on " + table + " lost: nobody holds it; " + caller + " does not");
    }
    String heldBy = stringOf(item, OWNER);
    long heldToken = longOf(item, TOKEN);
    long expiresAt = longOf(item, EXPIRES_AT);
    boolean ours = heldBy.equals(owner) && heldToken == token && !item.containsKey(RELEASED_AT);
    if (ours && expiresAt >= until) {
      return; // it already lasts long enough
    }
    String recorded = heldBy + " (token " + heldToken + ")";
    if (item.containsKey(RELEASED_AT)) {
      throw new LeaseLostException(
          "lease on "
              + table
              + " lost: nobody holds it, "
              + recorded
              + " released it at "
              + Instant.ofEpochMilli(longOf(item, RELEASED_AT))
              + "; "
              + caller
              + " does not hold it");
    }
    long now = clock.millis();
    if (expiresAt < now) {
      throw new LeaseLostException(
          "lease on "
              + table
              + " lost: nobody holds it, the lease of "
              + recorded
              + " expired at "
              + Instant.ofEpochMilli(expiresAt)
              + " (now "
              + Instant.ofEpochMilli(now)
              + "); "
              + caller
              + " does not hold it");
    }
    throw new LeaseLostException(
        "lease on "
            + table
            + " lost: held by "
            + recorded
            + " until "
            + Instant.ofEpochMilli(expiresAt)
            + "; "
            + caller
            + " does not hold it");
  }

  /**
   * Releases the lease on {@code table} if {@code owner} holds it with {@code token} (expired or
   * not). The token is kept, so the next acquisition gets token + 1.
   *
   * @return true when released; false, changing nothing, when the lease is someone else's, has
   *     another token, or was already released
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   */
  public boolean release(String table, String owner, long token) {
    try {
      dynamo.updateItem(
          b ->
              b.tableName(tableName)
                  .key(key(table))
                  .updateExpression("SET #expires = :zero, #released = :now")
                  .conditionExpression(
                      "#owner = :owner AND #token = :token AND attribute_not_exists(#released)")
                  .expressionAttributeNames(
                      Map.of(
                          "#owner", OWNER,
                          "#token", TOKEN,
                          "#expires", EXPIRES_AT,
                          "#released", RELEASED_AT))
                  .expressionAttributeValues(
                      Map.of(
                          ":owner", AttributeValue.fromS(owner),
                          ":token", number(token),
                          ":zero", number(0),
                          ":now", number(clock.millis()))));
      return true;
    } catch (ConditionalCheckFailedException notHeld) {
      return false;
    } catch (SdkException e) {
      throw DynamoFailures.classify(e, "releasing the lease on " + table + " for " + owner);
    }
  }

  /**
   * The lease item that failed a write's condition: DynamoDB returns it (ALL_OLD), DynamoDB
   * stand-ins may not, and then it is read; null when there is none.
   */
  private Map<String, AttributeValue> itemThatRefused(
      ConditionalCheckFailedException refused, String table, String owner) {
    return refused.hasItem() && !refused.item().isEmpty() ? refused.item() : readItem(table, owner);
  }

  /** The lease item (strongly consistent read), or null when there is none. */
  private Map<String, AttributeValue> readItem(String table, String owner) {
    try {
      Map<String, AttributeValue> item =
          dynamo.getItem(b -> b.tableName(tableName).key(key(table)).consistentRead(true)).item();
      return item == null || item.isEmpty() ? null : item;
    } catch (SdkException e) {
      throw DynamoFailures.classify(e, "reading the lease on " + table + " for " + owner);
    }
  }

  private static Map<String, AttributeValue> key(String table) {
    return Map.of(
        LeaseTableSchema.PK, AttributeValue.fromS(table),
        LeaseTableSchema.SK, AttributeValue.fromS(LEASE_SK));
  }

  static AttributeValue number(long value) {
    return AttributeValue.fromN(Long.toString(value));
  }

  static long longOf(Map<String, AttributeValue> item, String name) {
    AttributeValue value = item.get(name);
    return value == null || value.n() == null ? 0 : Long.parseLong(value.n());
  }

  static String stringOf(Map<String, AttributeValue> item, String name) {
    AttributeValue value = item.get(name);
    return value == null ? null : value.s();
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
