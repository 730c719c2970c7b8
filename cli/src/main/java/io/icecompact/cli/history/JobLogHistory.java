package io.icecompact.cli.history;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lease.JobLog;
import io.icecompact.lease.JobLogEntry;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The deployed pipeline's job log in its DynamoDB lease table, written by {@code ReleaseLease}: one
 * entry per execution that got the lease, failed ones included. The log keeps counts, not group
 * outcomes; with a catalog, {@link #find} also reads the whole result the entry points to.
 */
public final class JobLogHistory implements JobHistory {
  private final DynamoDbClient dynamo;
  private final String leaseTable;
  private final TableAccess access;

  /**
   * @param dynamo closed with this history
   * @param access the catalog, to read whole results through its FileIO; null: entries only. Closed
   *     with this.
   */
  public JobLogHistory(DynamoDbClient dynamo, String leaseTable, TableAccess access) {
    this.dynamo = dynamo;
    this.leaseTable = leaseTable;
    this.access = access;
  }

  @Override
  public List<JobRecord> recent(String table, int limit) {
    return new JobLog(dynamo, leaseTable)
        .recent(table, limit).stream().map(entry -> new JobRecord(entry, null)).toList();
  }

  @Override
  public Optional<JobRecord> find(String table, String jobId) {
    return new JobLog(dynamo, leaseTable)
        .find(table, jobId)
        .map(entry -> new JobRecord(entry, wholeResult(entry)));
  }

  /** The stored result the entry names, when a catalog was given and the result is still there. */
  private JobResult wholeResult(JobLogEntry entry) {
    if (access == null || entry.resultLocation() == null) {
      return null;
    }
    return new JobStore(access.fileIO())
        .readDocument(entry.resultLocation(), JobResult.class)
        .orElse(null);
  }

  @Override
  public String where(String table) {
    return "the job log in DynamoDB table " + leaseTable;
  }

  @Override
  public void close() {
    try {
      dynamo.close();
    } finally {
      if (access != null) {
        access.close();
      }
    }
  }
}
