package io.icecompact.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.testkit.LocalDynamoDb;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class JobLogTest {
  static final String LEASES = "icecompact-leases";
  private static LocalDynamoDb dynamo;

  @BeforeAll
  static void startDynamo() {
    dynamo = new LocalDynamoDb();
    LeaseTableSchema.create(dynamo.client(), LEASES);
    LeaseTableSchema.create(dynamo.client(), LEASES); // idempotent
  }

  @AfterAll
  static void stopDynamo() {
    dynamo.close();
  }

  static JobLogEntry entry(String table, String jobId, long startedAt, String status) {
    return new JobLogEntry(
        table,
        jobId,
        startedAt,
        status,
        Map.of("rewritten_data_files_count", startedAt % 1000),
        List.of(),
        1000,
        null,
        "arn:aws:states:eu-west-1:123456789012:execution:compaction:" + jobId,
        null,
        null);
  }

  @Test
  void recentReturnsTheNewestJobsOfOneTableNewestFirst() {
    JobLog log = new JobLog(dynamo.client(), LEASES);
    // Written out of order; 999 has fewer digits than the others (zero padding keeps the order
    // numeric).
    log.record(entry("db.a", "job-2", 2_000_000_000_000L, "PARTIAL"));
    log.record(entry("db.a", "job-0", 999L, "FAILED"));
    log.record(entry("db.a", "job-3", 3_000_000_000_000L, "COMMITTED"));
    log.record(entry("db.a", "job-1", 1_000_000_000_000L, "COMMITTED"));
    log.record(entry("db.b", "job-9", 9_000_000_000_000L, "COMMITTED"));
    // The lease item shares the partition and must not show up.
    new TableLease(dynamo.client(), LEASES, Clock.systemUTC())
        .acquire("db.a", "exec", Duration.ofMinutes(1));

    assertThat(log.recent("db.a", 2))
        .extracting(JobLogEntry::jobId)
        .containsExactly("job-3", "job-2");
    assertThat(log.recent("db.a", 10))
        .extracting(JobLogEntry::jobId)
        .containsExactly("job-3", "job-2", "job-1", "job-0");
    assertThat(log.recent("db.b", 10))
        .containsExactly(entry("db.b", "job-9", 9_000_000_000_000L, "COMMITTED"));
    assertThat(log.recent("db.none", 10)).isEmpty();
  }

  @Test
  void anEntryRoundTripsWithCountsSnapshotIdsAndError() {
    JobLog log = new JobLog(dynamo.client(), LEASES);
    JobResult result =
        JobResult.builder("job-3f1c", "demo.orders", JobStatus.PARTIAL)
            .reason("group 4 failed: corrupt footer")
            .snapshotIds(List.of(5969364612895262437L, -12L))
            .rewrittenDataFilesCount(150)
            .addedDataFilesCount(30)
            .rewrittenBytesCount(7_654_321L)
            .failedDataFilesCount(5)
            .removedDeleteFilesCount(6)
            .rewrittenGroups(29)
            .failedGroups(1)
            .skippedGroups(2)
            .verification(new JobResult.Verification(true, List.of()))
            .durationMillis(5310)
            .groups(List.of())
            .build();
    JobLogEntry entry =
        JobLogEntry.of(
            result.summary("s3://work/demo.orders/job-3f1c/result.json"),
            1_764_000_000_123L,
            5310,
            "arn:aws:states:eu-west-1:123456789012:execution:compaction:e1");

    log.record(entry);
    log.record(entry); // the same job again replaces it

    List<JobLogEntry> recent = log.recent("demo.orders", 5);
    assertThat(recent).containsExactly(entry);
    JobLogEntry read = recent.get(0);
    assertThat(read.status()).isEqualTo("PARTIAL");
    assertThat(read.error()).isEqualTo("group 4 failed: corrupt footer");
    assertThat(read.snapshotIds()).containsExactly(5969364612895262437L, -12L);
    assertThat(read.durationMillis()).isEqualTo(5310);
    assertThat(read.executionArn())
        .isEqualTo("arn:aws:states:eu-west-1:123456789012:execution:compaction:e1");
    assertThat(read.resultLocation()).isEqualTo("s3://work/demo.orders/job-3f1c/result.json");
    assertThat(read.counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "rewritten_data_files_count", 150L,
                "added_data_files_count", 30L,
                "rewritten_bytes_count", 7_654_321L,
                "failed_data_files_count", 5L,
                "removed_delete_files_count", 6L,
                "rewritten_groups", 29L,
                "failed_groups", 1L,
                "conflicted_groups", 0L,
                "skipped_groups", 2L));
    assertThat(JobLog.sortKey(1_764_000_000_123L, "job-3f1c"))
        .isEqualTo("job#001764000000123#job-3f1c");
  }

  /**
   * DynamoDB's TTL deletes an item once its epoch-seconds attribute has passed: the job's end plus
   * the retention.
   */
  @Test
  void everyEntryExpiresItsRetentionAfterTheJobEnded() {
    long started = 1_764_000_000_123L;
    new JobLog(dynamo.client(), LEASES).record(entry("db.ttl", "job-90", started, "COMMITTED"));
    new JobLog(dynamo.client(), LEASES, Duration.ofDays(7))
        .record(entry("db.ttl", "job-7", started, "FAILED"));

    long ended = (started + 1000) / 1000;
    assertThat(expiresAt("db.ttl", started, "job-90"))
        .isEqualTo(ended + Duration.ofDays(90).toSeconds());
    assertThat(expiresAt("db.ttl", started, "job-7"))
        .isEqualTo(ended + Duration.ofDays(7).toSeconds());
    assertThatThrownBy(() -> new JobLog(dynamo.client(), LEASES, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Job log retention must be positive, got PT0S");
  }

  @Test
  void findReturnsOneJobOfOneTableWhateverItsStart() {
    JobLog log = new JobLog(dynamo.client(), LEASES);
    for (int i = 0; i < 30; i++) {
      log.record(entry("db.find", "job-" + i, 1_000_000L * i, "COMMITTED"));
    }
    log.record(entry("db.other", "job-x", 5L, "PARTIAL"));

    assertThat(log.find("db.find", "job-3"))
        .contains(entry("db.find", "job-3", 3_000_000L, "COMMITTED"));
    assertThat(log.find("db.find", "job-0")).contains(entry("db.find", "job-0", 0L, "COMMITTED"));
    assertThat(log.find("db.find", "job-x")).isEmpty();
    assertThat(log.find("db.other", "job-x")).map(JobLogEntry::status).contains("PARTIAL");
  }

  private static long expiresAt(String table, long started, String jobId) {
    Map<String, AttributeValue> item =
        dynamo
            .client()
            .getItem(
                b ->
                    b.tableName(LEASES)
                        .key(
                            Map.of(
                                LeaseTableSchema.PK, AttributeValue.fromS(table),
                                LeaseTableSchema.SK,
                                    AttributeValue.fromS(JobLog.sortKey(started, jobId)))))
            .item();
    return Long.parseLong(item.get(JobLog.EXPIRES_AT).n());
  }
}
