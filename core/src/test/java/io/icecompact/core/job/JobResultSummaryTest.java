package io.icecompact.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What CommitSnapshot hands to Step Functions: the job result without the per-group outcomes, whose
 * size does not grow with the number of groups, naming where the whole result is.
 */
class JobResultSummaryTest {
  private static final String WHOLE = "s3://b/t/_icecompact/job-1/result.json";

  static JobResult result(int groups, int problems) {
    List<GroupOutcome> outcomes =
        IntStream.range(0, groups)
            .mapToObj(
                i ->
                    new GroupOutcome(
                        i,
                        "day=2024-01-" + i,
                        GroupOutcome.Status.REWRITTEN,
                        null,
                        2,
                        2048,
                        1,
                        600,
                        6080832484641370336L,
                        "columnar",
                        "eligible",
                        0))
            .toList();
    List<String> found = IntStream.range(0, problems).mapToObj(i -> "problem " + i).toList();
    return JobResult.builder("job-1", "db.t", JobStatus.COMMITTED)
        .reason("r".repeat(5000))
        .snapshotIds(List.of(7L))
        .rewrittenDataFilesCount(2 * groups)
        .addedDataFilesCount(groups)
        .rewrittenBytesCount(2048L * groups)
        .rewrittenGroups(groups)
        .skippedGroups(3)
        .verification(new JobResult.Verification(problems == 0, found))
        .durationMillis(10)
        .groups(outcomes)
        .build();
  }

  @Test
  void theSummaryKeepsEveryCountAndDropsTheGroups() throws Exception {
    JobResult whole = result(1000, 0);

    JsonNode summary = JobJson.mapper().readTree(JobJson.toJson(whole.summary(WHOLE)));

    assertThat(summary.has("groups")).isFalse();
    assertThat(summary.get("result_location").asText()).isEqualTo(WHOLE);
    JsonNode full = JobJson.mapper().readTree(JobJson.toJson(whole));
    for (String field :
        List.of(
            "job_id",
            "table",
            "status",
            "snapshot_ids",
            "rewritten_data_files_count",
            "added_data_files_count",
            "rewritten_bytes_count",
            "failed_data_files_count",
            "removed_delete_files_count",
            "rewritten_groups",
            "failed_groups",
            "conflicted_groups",
            "skipped_groups",
            "duration_millis")) {
      assertThat(summary.get(field)).as(field).isEqualTo(full.get(field));
    }
    // counts take a few more digits; the whole result grows by ~200 bytes a group
    JobResult large = result(10_000, 0);
    assertThat(JobJson.toBytes(large.summary(WHOLE)).length)
        .isLessThanOrEqualTo(JobJson.toBytes(result(10, 0).summary(WHOLE)).length + 20);
    assertThat(JobJson.toBytes(large).length).isGreaterThan(2_000_000);
  }

  @Test
  void theSummaryListsTheFirstProblemsCountsTheRestAndCutsTheReason() {
    JobResult summary = result(5, 25).summary(WHOLE);

    assertThat(summary.verification().problems())
        .hasSize(JobResult.SUMMARY_PROBLEMS)
        .startsWith("problem 0");
    assertThat(summary.verification().moreProblems()).isEqualTo(15);
    assertThat(summary.verification().verified()).isFalse();
    assertThat(summary.reason())
        .hasSize(JobResult.SUMMARY_REASON_CHARS + "... (3000 more characters)".length());
    assertThat(result(5, 3).summary(WHOLE).verification().moreProblems()).isNull();
  }

  @Test
  void theLargestSummaryStaysFarBelowStepFunctionsLimit() {
    JobResult whole = result(10_000, 500);
    List<Long> snapshotIds = IntStream.range(0, 1000).mapToObj(i -> Long.MIN_VALUE + i).toList();
    List<String> longProblems = IntStream.range(0, 500).mapToObj(i -> "p".repeat(10_000)).toList();
    JobResult worst =
        JobResult.builder(whole.jobId(), whole.table(), JobStatus.PARTIAL)
            .reason(whole.reason())
            .snapshotIds(snapshotIds)
            .rewrittenDataFilesCount(1)
            .addedDataFilesCount(1)
            .rewrittenBytesCount(1)
            .failedDataFilesCount(1)
            .removedDeleteFilesCount(1)
            .rewrittenGroups(1)
            .failedGroups(1)
            .conflictedGroups(1)
            .skippedGroups(1)
            .verification(new JobResult.Verification(false, longProblems))
            .durationMillis(1)
            .groups(whole.groups())
            .build();

    // 1,000 snapshot ids (partial-progress.max-commits at its cap), 10 problems and the reason at
    // their cuts
    assertThat(JobJson.toBytes(worst.summary(WHOLE)).length).isLessThan(46 * 1024);
  }

  @Test
  void theSummaryReadsBackAsAJobResult() {
    JobResult summary = result(3, 12).summary(WHOLE);

    assertThat(JobJson.fromBytes(JobJson.toBytes(summary), JobResult.class, "summary"))
        .isEqualTo(summary);
  }
}
