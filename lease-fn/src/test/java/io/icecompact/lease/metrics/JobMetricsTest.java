package io.icecompact.lease.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobMetricsTest {
  @Test
  void partialJobBecomesOneEmfDocumentWithTheTableAsDimension() throws Exception {
    JobResult result =
        JobResult.builder("job-1", "analytics.orders", JobStatus.PARTIAL)
            .reason("1 conflicted")
            .snapshotIds(List.of(7L))
            .rewrittenDataFilesCount(145)
            .addedDataFilesCount(29)
            .rewrittenBytesCount(9_000_000L)
            .failedDataFilesCount(5)
            .removedDeleteFilesCount(6)
            .rewrittenGroups(29)
            .conflictedGroups(1)
            .verification(new JobResult.Verification(true, List.of()))
            .durationMillis(2500L)
            .groups(List.of())
            .build();

    JsonNode emf =
        JobJson.mapper().readTree(JobJson.toJson(JobMetrics.emf(result, 1_700_000_000_000L)));

    JsonNode directive = emf.get("_aws").get("CloudWatchMetrics").get(0);
    assertThat(emf.get("_aws").get("Timestamp").asLong()).isEqualTo(1_700_000_000_000L);
    assertThat(directive.get("Namespace").asText()).isEqualTo("icecompact");
    assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Table\"]]");
    assertThat(emf.get("Table").asText()).isEqualTo("analytics.orders");
    assertThat(emf.get("job_id").asText()).isEqualTo("job-1");
    // every declared metric has a value at the top level, as EMF requires
    for (JsonNode metric : directive.get("Metrics")) {
      assertThat(emf.has(metric.get("Name").asText())).as(metric.toString()).isTrue();
    }
    assertThat(emf.get("RewrittenDataFiles").asInt()).isEqualTo(145);
    assertThat(emf.get("ConflictedGroups").asInt()).isEqualTo(1);
    assertThat(emf.get("JobsPartial").asInt()).isEqualTo(1);
    assertThat(emf.get("JobsCommitted").asInt()).isZero();
    assertThat(emf.get("JobsContended").asInt()).isZero();
    // No commit figures in the result: no attempt counted.
    assertThat(emf.get("CommitAttempts").asInt()).isZero();
    assertThat(emf.get("LostCommitAttempts").asInt()).isZero();
    assertThat(emf.get("RewrittenBytes").asLong()).isEqualTo(9_000_000L);
    assertThat(directive.get("Metrics").findValuesAsText("Unit"))
        .contains("Bytes", "Milliseconds", "Count");
  }

  @Test
  void aContendedJobCountsAsContendedOnlyWithItsCommitAttempts() throws Exception {
    CommitAttempts commit =
        CommitAttempts.of(
            List.of(
                new CommitAttempt(0, 1, 10, 20, 5, 30, 1, CommitAttempt.Outcome.LOST),
                new CommitAttempt(0, 2, 10, 20, 5, 30, 2, CommitAttempt.Outcome.LOST),
                new CommitAttempt(0, 3, 10, 20, 5, 30, 0, CommitAttempt.Outcome.REFUSED)),
            400L);
    JobResult result =
        JobResult.builder("job-3", "analytics.orders", JobStatus.CONTENDED)
            .reason("other writers won every race")
            .conflictedGroups(2)
            .verification(new JobResult.Verification(true, List.of()))
            .durationMillis(2500L)
            .groups(List.of())
            .build()
            .withCommit(commit);

    JsonNode emf =
        JobJson.mapper().readTree(JobJson.toJson(JobMetrics.emf(result, 1_700_000_000_000L)));

    assertThat(emf.get("status").asText()).isEqualTo("CONTENDED");
    assertThat(emf.get("JobsContended").asInt()).isEqualTo(1);
    for (String other : List.of("JobsCommitted", "JobsPartial", "JobsFailed", "JobsUnknown")) {
      assertThat(emf.get(other).asInt()).as(other).isZero();
    }
    assertThat(emf.get("CommitAttempts").asInt()).isEqualTo(3);
    assertThat(emf.get("LostCommitAttempts").asInt()).isEqualTo(2);
    JsonNode directive = emf.get("_aws").get("CloudWatchMetrics").get(0);
    assertThat(directive.get("Metrics").findValuesAsText("Name"))
        .contains("JobsContended", "CommitAttempts", "LostCommitAttempts");
    for (JsonNode metric : directive.get("Metrics")) {
      assertThat(emf.has(metric.get("Name").asText())).as(metric.toString()).isTrue();
    }
  }

  @Test
  void anExecutionThatFailedWithoutAResultCountsAsAFailedJob() throws Exception {
    JsonNode emf =
        JobJson.mapper()
            .readTree(
                JobJson.toJson(
                    JobMetrics.failedExecution(
                        "analytics.orders",
                        "job-2",
                        "io.icecompact.core.error.TransientException",
                        901_000L,
                        1_700_000_000_000L)));

    JsonNode directive = emf.get("_aws").get("CloudWatchMetrics").get(0);
    assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Table\"]]");
    assertThat(emf.get("Table").asText()).isEqualTo("analytics.orders");
    assertThat(emf.get("JobsFailed").asInt()).isEqualTo(1);
    assertThat(emf.get("JobsCommitted").asInt()).isZero();
    // Every Jobs* count is present, so the staleness alarms' per-day series line up.
    assertThat(emf.get("JobsContended").asInt()).isZero();
    assertThat(emf.get("JobDuration").asLong()).isEqualTo(901_000L);
    assertThat(emf.get("error").asText()).isEqualTo("io.icecompact.core.error.TransientException");
    for (JsonNode metric : directive.get("Metrics")) {
      assertThat(emf.has(metric.get("Name").asText())).as(metric.toString()).isTrue();
    }
  }
}
