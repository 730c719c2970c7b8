package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demo} and {@code plan} on the documented demo table. The rows the demo starts from are
 * taken from an identical table built here (generation is seeded), so the test checks the demo's
 * claim that the live rows are unchanged instead of trusting it.
 */
class DemoAndPlanCommandTest {
  static final String TABLE = "demo.orders";

  @TempDir static Path reference;

  /** Built in the background: it takes as long as the demo's own table, and the two overlap. */
  static CompletableFuture<TestTables.State> referenceBuild;

  @BeforeAll
  static void buildReferenceDemoTable() {
    referenceBuild =
        CompletableFuture.supplyAsync(
            () -> {
              TestTables.create(reference, TABLE, FragmentedTable.Shape.demo(2));
              return TestTables.State.of(reference, TABLE);
            });
  }

  static TestTables.State referenceState() {
    TestTables.State state = referenceBuild.join();
    // 150 files, minus every 50th row of the position-deleted files and up to N equality-deleted
    // ids
    FragmentedTable.Shape shape = FragmentedTable.Shape.demo(2);
    long written = 150L * shape.rowsPerFile();
    long byPosition = (long) shape.positionDeletedFiles() * ((shape.rowsPerFile() + 49) / 50);
    assertThat(LiveRows.count(state.rows()))
        .isBetween(written - byPosition - shape.equalityDeletedRows(), written - byPosition - 1);
    return state;
  }

  static JsonNode parseWhole(String json) throws Exception {
    return JobJson.mapper()
        .readerFor(JsonNode.class)
        .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .readValue(json);
  }

  @Test
  void demoCompactsAndKeepsEveryLiveRow(@TempDir Path dir) throws Exception {
    Path warehouse = dir.resolve("wh");

    CliRun run = CliRun.of("demo", "--warehouse", warehouse.toString(), "--json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode result = parseWhole(run.out()); // stdout is the result and nothing else
    assertThat(result.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(result.get("table").asText()).isEqualTo(TABLE);
    assertThat(result.get("rewritten_data_files_count").asInt()).isEqualTo(150);
    assertThat(result.get("added_data_files_count").asInt()).isEqualTo(30);
    assertThat(result.get("rewritten_groups").asInt()).isEqualTo(30);
    assertThat(result.get("failed_groups").asInt()).isZero();
    assertThat(result.get("snapshot_ids")).hasSize(1);
    assertThat(result.get("verification").get("verified").asBoolean()).isTrue();
    assertThat(run.systemOut()).isEmpty();
    assertThat(run.err()).contains("committing...").contains("multiset identical");

    // the test's own check: the rows left in the warehouse are the rows the demo started from
    Map<String, Long> after = TestTables.withTable(warehouse, TABLE, LiveRows::multiset);
    assertThat(after).isEqualTo(referenceState().rows());
    Map<String, String> files = TestTables.withTable(warehouse, TABLE, TestTables::liveDataFiles);
    assertThat(files).hasSize(30);
    assertThat(files.values()).doesNotHaveDuplicates();
    long snapshot = TestTables.withTable(warehouse, TABLE, t -> t.currentSnapshot().snapshotId());
    assertThat(result.get("snapshot_ids").get(0).asLong()).isEqualTo(snapshot);
  }

  @Test
  void planPrintsTheGroupsAndWritesNothing() {
    TestTables.State referenceState = referenceState();
    List<String> args = new ArrayList<>(List.of("plan", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(reference));

    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(32);
    assertThat(lines.get(0))
        .matches(
            "demo\\.orders: 30 groups, 150 files, \\d+\\.\\d MB, pinned snapshot "
                + referenceState.snapshotId());
    assertThat(lines.get(1)).isEqualTo("  strategy binpack");
    List<String> groups = lines.subList(2, 32);
    for (int i = 0; i < 30; i++) {
      assertThat(groups.get(i))
          .matches(String.format("  group %3d  ordered_at_day=2026-06-\\d\\d +5 files .*", i));
    }
    List<String> expectedDays =
        IntStream.rangeClosed(1, 30)
            .mapToObj(d -> String.format("ordered_at_day=2026-06-%02d", d))
            .toList();
    assertThat(groups.stream().map(l -> l.trim().split("\\s+")[2]).collect(Collectors.toList()))
        .containsExactlyInAnyOrderElementsOf(expectedDays);
    assertThat(run.systemOut()).isEmpty();

    // a dry run: same snapshot, rows and files, and no job folder
    assertThat(TestTables.State.of(reference, TABLE)).isEqualTo(referenceState);
    String location = TestTables.withTable(reference, TABLE, t -> t.location());
    assertThat(TestTables.localPath(location).resolve("_icecompact")).doesNotExist();
  }

  @Test
  void planAsJsonListsTheGroupsAndWritesNothing() throws Exception {
    TestTables.State referenceState = referenceState();
    List<String> args = new ArrayList<>(List.of("plan", "--json", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(reference));

    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode plan = parseWhole(run.out());
    assertThat(plan.get("status").asText()).isEqualTo("PLANNED");
    assertThat(plan.get("skipped_groups").asInt()).isZero();
    assertThat(plan.get("strategy").asText()).isEqualTo("binpack");
    assertThat(plan.has("row_order")).isFalse();
    assertThat(plan.get("pinned").get("snapshot_id").asLong())
        .isEqualTo(referenceState.snapshotId());
    assertThat(plan.get("groups")).hasSize(30);
    int files = 0;
    for (JsonNode group : plan.get("groups")) {
      files += group.get("input_files").asInt();
      assertThat(group.has("tasks")).isFalse();
    }
    assertThat(files).isEqualTo(150);
    assertThat(TestTables.State.of(reference, TABLE)).isEqualTo(referenceState);
  }
}
