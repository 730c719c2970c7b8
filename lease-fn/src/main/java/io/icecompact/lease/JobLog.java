package io.icecompact.lease;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The history of compaction jobs per table, in the lease table: one item per job with
 * {@code pk=<table>}, {@code sk="job#<started_at millis, 15 digits>#<job id>"}, so that a Query on the
 * table's partition returns jobs in start order without an index. Attributes: {@code job_id},
 * {@code started_at}, {@code status}, {@code counts} (map of numbers), {@code snapshot_ids} (list of
 * numbers), {@code duration_millis}, and {@code error} when there is one.
 */
public final class JobLog {
  static final String JOB_PREFIX = "job#";

  private final DynamoDbClient dynamo;
  private final String tableName;

  public JobLog(DynamoDbClient dynamo, String tableName) {
    this.dynamo = Objects.requireNonNull(dynamo, "dynamo");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
  }

  /**
   * Writes {@code entry}; recording the same job (table, start, id) again replaces it.
   *
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   * @throws LeaseStoreException when DynamoDB refuses the request otherwise
   */
  public void record(JobLogEntry entry) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(LeaseTableSchema.PK, AttributeValue.fromS(entry.table()));
    item.put(LeaseTableSchema.SK, AttributeValue.fromS(sortKey(entry.startedAtMillis(), entry.jobId())));
    item.put("job_id", AttributeValue.fromS(entry.jobId()));
    item.put("started_at", TableLease.number(entry.startedAtMillis()));
    item.put("status", AttributeValue.fromS(entry.status()));
    Map<String, AttributeValue> counts = new HashMap<>();
    entry.counts().forEach((name, value) -> counts.put(name, TableLease.number(value)));
    item.put("counts", AttributeValue.fromM(counts));
    item.put(
        "snapshot_ids",
        AttributeValue.fromL(entry.snapshotIds().stream().map(TableLease::number).toList()));
    item.put("duration_millis", TableLease.number(entry.durationMillis()));
    if (entry.error() != null) {
      item.put("error", AttributeValue.fromS(entry.error()));
    }
    try {
      dynamo.putItem(b -> b.tableName(tableName).item(item));
    } catch (SdkException e) {
      throw DynamoFailures.classify(
          e, "recording job " + entry.jobId() + " of " + entry.table() + " in the job log");
    }
  }

  /**
   * The {@code limit} most recently started jobs of {@code table}, newest first.
   *
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   */
  public List<JobLogEntry> recent(String table, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    List<Map<String, AttributeValue>> items;
    try {
      items =
          dynamo
              .query(
                  b ->
                      b.tableName(tableName)
                          .keyConditionExpression("#pk = :table AND begins_with(#sk, :prefix)")
                          .expressionAttributeNames(
                              Map.of("#pk", LeaseTableSchema.PK, "#sk", LeaseTableSchema.SK))
                          .expressionAttributeValues(
                              Map.of(
                                  ":table", AttributeValue.fromS(table),
                                  ":prefix", AttributeValue.fromS(JOB_PREFIX)))
                          .scanIndexForward(false)
                          .consistentRead(true)
                          .limit(limit))
              .items();
    } catch (SdkException e) {
      throw DynamoFailures.classify(e, "reading the job log of " + table);
    }
    List<JobLogEntry> entries = new ArrayList<>(items.size());
    for (Map<String, AttributeValue> item : items) {
      entries.add(entry(table, item));
    }
    return entries;
  }

  static String sortKey(long startedAtMillis, String jobId) {
    return JOB_PREFIX + String.format("%015d", startedAtMillis) + "#" + jobId;
  }

  private static JobLogEntry entry(String table, Map<String, AttributeValue> item) {
    Map<String, Long> counts = new LinkedHashMap<>();
    AttributeValue storedCounts = item.get("counts");
    if (storedCounts != null && storedCounts.hasM()) {
      storedCounts.m().entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(e -> counts.put(e.getKey(), Long.parseLong(e.getValue().n())));
    }
    List<Long> snapshotIds = new ArrayList<>();
    AttributeValue storedIds = item.get("snapshot_ids");
    if (storedIds != null && storedIds.hasL()) {
      storedIds.l().forEach(id -> snapshotIds.add(Long.parseLong(id.n())));
    }
    return new JobLogEntry(
        table,
        TableLease.stringOf(item, "job_id"),
        TableLease.longOf(item, "started_at"),
        TableLease.stringOf(item, "status"),
        counts,
        snapshotIds,
        TableLease.longOf(item, "duration_millis"),
        TableLease.stringOf(item, "error"));
  }
}
