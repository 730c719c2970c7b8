package io.icecompact.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobMetricsTest {
  @Test
  void partialJobBecomesOneEmfDocumentWithTheTableAsDimension() throws Exception {
    JobResult result =
        new JobResult("job-1", "analytics.orders", JobStatus.PARTIAL, "1 conflicted", List.of(7L),
            145, 29, 9_000_000L, 5, 6, 29, 0, 1, 0, new JobResult.Verification(true, List.of()), 2500L, List.of());

    JsonNode emf = JobJson.mapper().readTree(JobJson.toJson(JobMetrics.emf(result, 1_700_000_000_000L)));

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
    assertThat(emf.get("RewrittenBytes").asLong()).isEqualTo(9_000_000L);
    assertThat(directive.get("Metrics").findValuesAsText("Unit")).contains("Bytes", "Milliseconds", "Count");
  }

  @Test
  void anExecutionThatFailedWithoutAResultCountsAsAFailedJob() throws Exception {
    JsonNode emf = JobJson.mapper().readTree(JobJson.toJson(JobMetrics.failedExecution(
        "analytics.orders", "job-2", "io.icecompact.core.error.TransientException", 901_000L, 1_700_000_000_000L)));

    JsonNode directive = emf.get("_aws").get("CloudWatchMetrics").get(0);
    assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Table\"]]");
    assertThat(emf.get("Table").asText()).isEqualTo("analytics.orders");
    assertThat(emf.get("JobsFailed").asInt()).isEqualTo(1);
    assertThat(emf.get("JobsCommitted").asInt()).isZero();
    assertThat(emf.get("JobDuration").asLong()).isEqualTo(901_000L);
    assertThat(emf.get("error").asText()).isEqualTo("io.icecompact.core.error.TransientException");
    for (JsonNode metric : directive.get("Metrics")) {
      assertThat(emf.has(metric.get("Name").asText())).as(metric.toString()).isTrue();
    }
  }
}
