package io.icecompact.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Snapshot ids are random 64-bit numbers; documents that pass through Step Functions (the plan
 * summary, the job result) carry them as strings so that no reader parsing numbers as doubles
 * rounds them.
 */
class JobJsonSnapshotIdTest {
  private static final long ID = 6080832484641370336L; // > 2^53: a double would make it ...370000

  @Test
  void snapshotIdsAreWrittenAsStringsAndReadInEitherForm() throws Exception {
    GroupOutcome group =
        new GroupOutcome(
            0,
            "p=1",
            GroupOutcome.Status.REWRITTEN,
            null,
            5,
            100,
            1,
            10,
            ID,
            "columnar",
            "eligible",
            0);
    JobResult result =
        JobResult.builder("job-1", "db.t", JobStatus.COMMITTED)
            .snapshotIds(List.of(ID, 7L))
            .rewrittenDataFilesCount(5)
            .addedDataFilesCount(1)
            .rewrittenBytesCount(100)
            .rewrittenGroups(1)
            .verification(new JobResult.Verification(true, List.of()))
            .durationMillis(10)
            .groups(List.of(group))
            .build();

    JsonNode json = JobJson.mapper().readTree(JobJson.toJson(result));

    assertThat(json.get("snapshot_ids").get(0).isTextual()).isTrue();
    assertThat(json.get("snapshot_ids").get(0).asText()).isEqualTo(Long.toString(ID));
    assertThat(json.get("snapshot_ids").get(1).asText()).isEqualTo("7");
    assertThat(json.get("groups").get(0).get("snapshot_id").asText()).isEqualTo(Long.toString(ID));
    assertThat(json.get("rewritten_data_files_count").isNumber()).isTrue();
    assertThat(JobJson.fromBytes(JobJson.toBytes(result), JobResult.class, "result"))
        .isEqualTo(result);

    // documents written before (numbers) still read
    String numeric =
        JobJson.toJson(result).replace("\"" + ID + "\"", Long.toString(ID)).replace("\"7\"", "7");
    assertThat(numeric).contains("[" + ID + ",7]");
    assertThat(JobJson.mapper().readValue(numeric, JobResult.class)).isEqualTo(result);

    PinnedSnapshot pinned = new PinnedSnapshot(ID, 12, "s3://b/m.json", 0, 0, 0, 2);
    JsonNode pinnedJson = JobJson.mapper().readTree(JobJson.toJson(pinned));
    assertThat(pinnedJson.get("snapshot_id").asText()).isEqualTo(Long.toString(ID));
    assertThat(pinnedJson.get("sequence_number").isNumber()).isTrue();
    assertThat(JobJson.mapper().readValue(JobJson.toJson(pinned), PinnedSnapshot.class))
        .isEqualTo(pinned);
  }
}
