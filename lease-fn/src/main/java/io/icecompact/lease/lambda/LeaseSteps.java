package io.icecompact.lease.lambda;

import io.icecompact.lease.JobLog;
import io.icecompact.lease.TableLease;
import java.time.Clock;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB-backed pieces the lease steps share, built once per Lambda container from the
 * environment: {@code LEASE_TABLE} names the table holding leases and the job log; credentials and
 * region come from the default provider chain.
 */
public record LeaseSteps(TableLease lease, JobLog jobLog, Clock clock) {
  public static final String TABLE_ENV = "LEASE_TABLE";

  public static LeaseSteps fromEnvironment() {
    String table = System.getenv(TABLE_ENV);
    if (table == null || table.isBlank()) {
      throw new IllegalStateException("Environment variable " + TABLE_ENV + " must name the lease table");
    }
    DynamoDbClient dynamo = DynamoDbClient.builder().httpClient(UrlConnectionHttpClient.create()).build();
    return of(dynamo, table, Clock.systemUTC());
  }

  public static LeaseSteps of(DynamoDbClient dynamo, String table, Clock clock) {
    return new LeaseSteps(new TableLease(dynamo, table, clock), new JobLog(dynamo, table), clock);
  }
}
