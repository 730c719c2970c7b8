package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The real definition with many groups: every Step Functions payload stays bounded (AWS refuses any
 * over 256 KiB, after the commit for CommitSnapshot's output; these tests hold them to a quarter of
 * that), whatever the number of groups. Each group is two tiny files (byte copies of one Parquet
 * file in an unpartitioned table, packed in twos by {@code max-file-group-size-bytes}).
 */
class StateMachineScaleTest extends StateMachineTestBase {
  /**
   * The bound the issue sets for every state's payload at 1,000 groups: a quarter of AWS's limit.
   */
  static final long PAYLOAD_BOUND_BYTES = 64 * 1024;

  static final int CONCURRENCY = 8;

  @Test
  void aThousandGroupsAreAllCommittedWithEveryPayloadUnder64KiB() {
    int groups = 1000;
    CopiedFileTable.Created created = createCopiedTable(2 * groups);
    Table table = created.table();
    Map<String, Long> rowsBefore = LiveRows.multiset(table);

    long started = System.nanoTime();
    ExecutionResult result = run(input(created, groups));
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;

    report("1,000 groups", result, seconds);
    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(groups);
    assertThat(output.get("rewritten_data_files_count").asInt()).isEqualTo(2 * groups);
    assertThat(output.get("added_data_files_count").asInt()).isEqualTo(groups);
    assertThat(output.get("skipped_groups").asInt()).isZero();
    assertThat(wholeResult(output).get("groups")).hasSize(groups);
    assertThat(liveTasks(table)).hasSize(groups);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertPayloadsBounded(result);
  }

  @Test
  void tenThousandPlannedGroupsAreCappedByMaxGroupsPerJob() {
    int planned = 10_000;
    int cap = 50;
    CopiedFileTable.Created created = createCopiedTable(2 * planned);
    Table table = created.table();
    long recordsBefore = totalRecords(table);

    Map<String, Object> input = input(created, cap);
    long started = System.nanoTime();
    ExecutionResult result = run(input);
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;

    report("10,000 planned groups, max-groups-per-job=" + cap, result, seconds);
    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(cap);
    assertThat(output.get("skipped_groups").asInt()).isEqualTo(planned - cap);
    assertThat(output.get("reason").asText()).contains((planned - cap) + " more group(s)");
    assertThat(output.get("rewritten_data_files_count").asInt()).isEqualTo(2 * cap);
    assertThat(committedPlan().get("group_indexes")).hasSize(cap);
    assertThat(lambda.invocations(CompactionDefinition.REWRITE_GROUP)).isEqualTo(cap);
    table.refresh();
    Snapshot replace = table.currentSnapshot();
    assertReplaceStampedWith(replace, output.get("job_id").asText());
    assertThat(replace.summary())
        .containsEntry("deleted-data-files", Integer.toString(2 * cap))
        .containsEntry("added-data-files", Integer.toString(cap));
    assertThat(totalRecords(table)).isEqualTo(recordsBefore);
    assertThat(liveTasks(table)).hasSize(2 * planned - cap);
    assertPayloadsBounded(result);
  }

  private CopiedFileTable.Created createCopiedTable(int files) {
    access = new TableAccess(jdbcCatalog());
    long started = System.nanoTime();
    CopiedFileTable.Created created =
        CopiedFileTable.create(access.catalog(), TableIdentifier.parse(TABLE), files);
    System.out.printf(
        "%d files of %d bytes written in %d ms%n",
        files, created.fileBytes(), (System.nanoTime() - started) / 1_000_000L);
    return created;
  }

  /**
   * Groups of exactly two files: tiny files are all candidates, and a group holds at most 2.5
   * files' bytes.
   */
  private Map<String, Object> input(CopiedFileTable.Created created, int maxGroups) {
    Map<String, Object> input = input(jdbcCatalog());
    Map<String, String> options = new LinkedHashMap<>();
    options.put("min-input-files", "2");
    options.put("max-file-group-size-bytes", Long.toString(created.fileBytes() * 5 / 2));
    options.put("max-groups-per-job", Integer.toString(maxGroups));
    input.put("options", options);
    input.put("max_concurrency", CONCURRENCY);
    return input;
  }

  private static long totalRecords(Table table) {
    table.refresh();
    return Long.parseLong(table.currentSnapshot().summary().get("total-records"));
  }

  private static void assertPayloadsBounded(ExecutionResult result) {
    assertThat(result.largestPayloads())
        .containsKeys(
            "PlanRewrite",
            "RewriteFileGroups",
            "RewriteFileGroups/RewriteGroup",
            "CommitSnapshot",
            "ReleaseLease",
            "Done",
            "(execution)");
    assertThat(result.largestPayloads())
        .as("every state's largest payload (bytes) at most %d", PAYLOAD_BOUND_BYTES)
        .allSatisfy(
            (state, bytes) -> assertThat(bytes).as(state).isLessThanOrEqualTo(PAYLOAD_BOUND_BYTES));
  }

  /** The measured payloads, for docs/state-machine.md. */
  private static void report(String run, ExecutionResult result, long seconds) {
    System.out.printf(
        "== %s: %s in %d s; largest payload of each state (bytes) ==%n",
        run, result.status(), seconds);
    result.payloads().forEach((state, kinds) -> System.out.printf("%-40s %s%n", state, kinds));
  }
}
