package io.icecompact.lease;

import java.time.Clock;
import java.time.Duration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB-backed pieces the lease steps share, built once per Lambda container from the
 * environment: {@code LEASE_TABLE} names the table holding leases and the job log; {@code
 * JOB_LOG_RETENTION_DAYS} (optional, default 90) how long job log entries are kept; credentials and
 * region come from the default provider chain.
 */
public record LeaseSteps(TableLease lease, JobLog jobLog, Clock clock) {
  public static final String TABLE_ENV = "LEASE_TABLE";
  public static final String RETENTION_DAYS_ENV = "JOB_LOG_RETENTION_DAYS";

  public static LeaseSteps fromEnvironment() {
    String table = System.getenv(TABLE_ENV);
    if (table == null || table.isBlank()) {
      throw new IllegalStateException(
          "Environment variable " + TABLE_ENV + " must name the lease table");
    }
    Duration retention = retention(System.getenv(RETENTION_DAYS_ENV));
    DynamoDbClient dynamo =
        DynamoDbClient.builder().httpClient(UrlConnectionHttpClient.create()).build();
    return of(dynamo, table, retention, Clock.systemUTC());
  }

  public static LeaseSteps of(DynamoDbClient dynamo, String table, Clock clock) {
    return of(dynamo, table, JobLog.RETENTION_DEFAULT, clock);
  }

  public static LeaseSteps of(
      DynamoDbClient dynamo, String table, Duration retention, Clock clock) {
    return new LeaseSteps(
        new TableLease(dynamo, table, clock), new JobLog(dynamo, table, retention), clock);
  }

  /**
   * The job log's retention from {@code JOB_LOG_RETENTION_DAYS}: unset is the default, else whole
   * days > 0.
   */
  static Duration retention(String days) {
    if (days == null || days.isBlank()) {
      return JobLog.RETENTION_DEFAULT;
    }
    try {
      long value = Long.parseLong(days.strip());
      if (value > 0) {
        return Duration.ofDays(value);
      }
    } catch (NumberFormatException e) {
      // reported below with the rule
    }
    throw new IllegalStateException(
        "Environment variable "
            + RETENTION_DAYS_ENV
            + " is set to '"
            + days
            + "' but must be a whole number of days > 0");
  }
}
