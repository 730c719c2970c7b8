package io.icecompact.lease;

import java.time.Duration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * The one DynamoDB table that holds the leases and the job log: string partition key {@code pk}
 * (the Iceberg table's identifier) and string sort key {@code sk} ({@code lease}, or {@code
 * job#...} for a job log entry). A deployment creates it with its infrastructure; tests and the
 * embedded runner use {@link #create}.
 */
public final class LeaseTableSchema {
  public static final String PK = "pk";
  public static final String SK = "sk";

  private static final Duration ACTIVE_TIMEOUT = Duration.ofMinutes(5);

  private LeaseTableSchema() {}

  /**
   * Creates the table with on-demand billing unless it exists, and waits until it is ACTIVE.
   *
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   * @throws LeaseStoreException when DynamoDB refuses, or the table is not ACTIVE within 5 minutes
   */
  public static void create(DynamoDbClient dynamo, String tableName) {
    try {
      dynamo.createTable(
          b ->
              b.tableName(tableName)
                  .billingMode(BillingMode.PAY_PER_REQUEST)
                  .attributeDefinitions(
                      a -> a.attributeName(PK).attributeType(ScalarAttributeType.S),
                      a -> a.attributeName(SK).attributeType(ScalarAttributeType.S))
                  .keySchema(
                      k -> k.attributeName(PK).keyType(KeyType.HASH),
                      k -> k.attributeName(SK).keyType(KeyType.RANGE)));
    } catch (ResourceInUseException exists) {
      // created before (or being created): wait for it below
    } catch (SdkException e) {
      throw DynamoFailures.classify(e, "DynamoDB CreateTable " + tableName);
    }
    long deadline = System.nanoTime() + ACTIVE_TIMEOUT.toNanos();
    long pauseMillis = 20;
    while (true) {
      TableStatus status;
      try {
        status = dynamo.describeTable(b -> b.tableName(tableName)).table().tableStatus();
      } catch (SdkException e) {
        throw DynamoFailures.classify(e, "DynamoDB DescribeTable " + tableName);
      }
      if (status == TableStatus.ACTIVE) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new LeaseStoreException(
            "DynamoDB table "
                + tableName
                + " is "
                + status
                + ", not ACTIVE, after "
                + ACTIVE_TIMEOUT);
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LeaseStoreException("interrupted while waiting for table " + tableName);
      }
      pauseMillis = Math.min(1000, pauseMillis * 2);
    }
  }
}
