package io.icecompact.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The history of compaction jobs per table, in the lease table: one item per job with {@code
 * pk=<table>}, {@code sk="job#<started_at millis, 15 digits>#<job id>"}, so that a Query on the
 * table's partition returns jobs in start order without an index. Attributes: {@code job_id},
 * {@code started_at}, {@code status}, {@code counts} (map of numbers), {@code snapshot_ids} (list
 * of numbers), {@code duration_millis}, and when known {@code error}, {@code execution_arn} and
 * {@code result_location}, and {@code care} when a care step refused or failed.
 *
 * <p>Every entry carries {@value #EXPIRES_AT} (epoch seconds): its end plus the retention, 90 days
 * unless set. DynamoDB deletes expired items only when the table's Time to Live is enabled on that
 * attribute; until then the log grows by one item per job.
 */
public final class JobLog {
  static final String JOB_PREFIX = "job#";

  /** The Time to Live attribute: when DynamoDB may delete the entry, in epoch seconds. */
  public static final String EXPIRES_AT = "expires_at_epoch_s";

  public static final Duration RETENTION_DEFAULT = Duration.ofDays(90);

  private static final String JOBS_OF_TABLE = "#pk = :table AND begins_with(#sk, :prefix)";
  private static final Map<String, String> KEY_NAMES =
      Map.of("#pk", LeaseTableSchema.PK, "#sk", LeaseTableSchema.SK);

  private final DynamoDbClient dynamo;
  private final String tableName;
  private final Duration retention;

  public JobLog(DynamoDbClient dynamo, String tableName) {
    this(dynamo, tableName, RETENTION_DEFAULT);
  }

  /**
   * @param retention how long after a job ended its entry is kept (when the table's TTL is enabled)
   */
  public JobLog(DynamoDbClient dynamo, String tableName, Duration retention) {
    this.dynamo = Objects.requireNonNull(dynamo, "dynamo");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
    if (retention == null || retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("Job log retention must be positive, got " + retention);
    }
    this.retention = retention;
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
    item.put(
        LeaseTableSchema.SK, AttributeValue.fromS(sortKey(entry.startedAtMillis(), entry.jobId())));
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
    putIfPresent(item, "error", entry.error());
    putIfPresent(item, "execution_arn", entry.executionArn());
    putIfPresent(item, "result_location", entry.resultLocation());
    putIfPresent(item, "care", entry.care());
    long endedAtSeconds = (entry.startedAtMillis() + Math.max(0, entry.durationMillis())) / 1000;
    item.put(EXPIRES_AT, TableLease.number(endedAtSeconds + retention.toSeconds()));
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
                          .keyConditionExpression(JOBS_OF_TABLE)
                          .expressionAttributeNames(KEY_NAMES)
                          .expressionAttributeValues(jobsOf(table))
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

  /**
   * The entry of job {@code jobId} of {@code table}, if the log has it. The sort key starts with
   * the start time, which the caller does not know: this reads the table's whole partition (bounded
   * by the retention), page by page, keeping only the job's item.
   *
   * @throws io.icecompact.core.error.TransientException on throttling, 5xx, timeouts
   */
  public Optional<JobLogEntry> find(String table, String jobId) {
    Map<String, AttributeValue> values = new HashMap<>(jobsOf(table));
    values.put(":job", AttributeValue.fromS(jobId));
    Map<String, String> names = new HashMap<>(KEY_NAMES);
    names.put("#job", "job_id");
    try {
      for (Map<String, AttributeValue> item :
          dynamo
              .queryPaginator(
                  b ->
                      b.tableName(tableName)
                          .keyConditionExpression(JOBS_OF_TABLE)
                          .filterExpression("#job = :job")
                          .expressionAttributeNames(names)
                          .expressionAttributeValues(values)
                          .scanIndexForward(false)
                          .consistentRead(true))
              .items()) {
        return Optional.of(entry(table, item));
      }
    } catch (SdkException e) {
      throw DynamoFailures.classify(
          e, "reading job " + jobId + " of " + table + " from the job log");
    }
    return Optional.empty();
  }

  private static Map<String, AttributeValue> jobsOf(String table) {
    return Map.of(
        ":table", AttributeValue.fromS(table), ":prefix", AttributeValue.fromS(JOB_PREFIX));
  }

  private static void putIfPresent(Map<String, AttributeValue> item, String name, String value) {
    if (value != null) {
      item.put(name, AttributeValue.fromS(value));
    }
  }

  static String sortKey(long startedAtMillis, String jobId) {
    return JOB_PREFIX + String.format("%015d", startedAtMillis) + "#" + jobId;
  }

  private static JobLogEntry entry(String table, Map<String, AttributeValue> item) {
    Map<String, Long> counts = new HashMap<>();
    AttributeValue storedCounts = item.get("counts");
    if (storedCounts != null && storedCounts.hasM()) {
      storedCounts.m().forEach((name, value) -> counts.put(name, Long.parseLong(value.n())));
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
        TableLease.stringOf(item, "error"),
        TableLease.stringOf(item, "execution_arn"),
        TableLease.stringOf(item, "result_location"),
        TableLease.stringOf(item, "care"));
  }
}
