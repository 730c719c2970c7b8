package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.fleet.HealthWarehouse;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code icecompact sweep} over the lab of docs/fleet.md: the best tables whose decision is to
 * compact are compacted and cared for, best score first and no more than {@code --max-tables}; the
 * others, opted out, too recent, predicted no-ops or beyond the budget, are left exactly as they
 * were.
 */
class SweepCommandTest {
  private static final List<String> TABLES =
      List.of(
          HealthWarehouse.STREAM,
          HealthWarehouse.DV3,
          HealthWarehouse.LEFTOVER,
          HealthWarehouse.MOR2,
          HealthWarehouse.HOURLY,
          HealthWarehouse.FRESH,
          HealthWarehouse.OPT_OUT,
          HealthWarehouse.RECENT);

  @TempDir static Path warehouse;

  @BeforeAll
  static void build() {
    HealthWarehouse.build(warehouse);
  }

  @Test
  void compactsTheBestTablesWithinTheBudgetCaresForThemAndLeavesTheRestUntouched()
      throws Exception {
    Map<String, Map<String, Long>> rowsBefore = new HashMap<>();
    Map<String, Long> snapshotsBefore = new HashMap<>();
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(warehouse))) {
      for (String name : TABLES) {
        Table table = access.loadTable(name);
        rowsBefore.put(name, LiveRows.multiset(table));
        snapshotsBefore.put(name, table.currentSnapshot().snapshotId());
      }
    }
    String healthBefore = CliRun.of(health()).out();

    List<String> args = new ArrayList<>(List.of("sweep"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "lab", "--namespace", "ops", "--max-tables", "4", "--json"));
    CliRun run = CliRun.of(args);

    String healthAfter = CliRun.of(health()).out();
    // kept for the docs and the closing note: the lab before and after one sweep
    Files.writeString(
        Path.of("target", "sweep-health.txt"),
        "before:\n" + healthBefore + "\nsweep:\n" + run.err() + "\nafter:\n" + healthAfter);

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode sweep = JobJson.mapper().readTree(run.out());
    assertThat(sweep.get("tables_assessed").asInt()).isEqualTo(9);
    assertThat(sweep.get("compacted").asInt()).isEqualTo(4);
    Map<String, JsonNode> byTable = new HashMap<>();
    sweep.get("tables").forEach(t -> byTable.put(t.get("before").get("table").asText(), t));

    // the four best COMPACT tables, by score: committed, fewer files, the same live rows, cared for
    for (String name :
        List.of(
            HealthWarehouse.STREAM,
            HealthWarehouse.DV3,
            HealthWarehouse.LEFTOVER,
            HealthWarehouse.MOR2)) {
      JsonNode t = byTable.get(name);
      assertThat(t.get("job").get("status").asText()).as(name).isEqualTo("COMMITTED");
      assertThat(t.get("after").get("data_files").asLong())
          .as(name)
          .isLessThan(t.get("before").get("health").get("data_files").asLong());
      assertThat(t.get("after").get("score").asDouble())
          .as(name)
          .isLessThan(t.get("before").get("health").get("score").asDouble());
      assertThat(t.get("care"))
          .as(name)
          .isNotEmpty()
          .allSatisfy(
              care ->
                  assertThat(care.get("status").asText()).as(name + " " + care).isEqualTo("DONE"));
    }
    List<String> mor2Steps = new ArrayList<>();
    byTable
        .get(HealthWarehouse.MOR2)
        .get("care")
        .forEach(c -> mor2Steps.add(c.get("step").asText()));
    // the defaults (issue 24): steps that cannot lose history; expiry and orphan removal only where
    // listed
    assertThat(mor2Steps).containsExactly("delete-cleanup", "rewrite-manifests");
    byTable
        .values()
        .forEach(
            t ->
                t.get("care")
                    .forEach(
                        c ->
                            assertThat(c.get("step").asText())
                                .as("%s", t.get("before").get("table"))
                                .isNotIn("expire-snapshots", "remove-orphans")));

    // the others: not compacted, not touched
    for (String name :
        List.of(
            HealthWarehouse.HOURLY,
            HealthWarehouse.FRESH,
            HealthWarehouse.OPT_OUT,
            HealthWarehouse.RECENT)) {
      assertThat(byTable.get(name).get("job")).as(name).isNull();
      assertThat(byTable.get(name).get("care")).as(name).isEmpty();
    }
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(warehouse))) {
      for (String name : TABLES) {
        Table table = access.loadTable(name);
        assertThat(LiveRows.multiset(table)).as(name).isEqualTo(rowsBefore.get(name));
        if (!byTable.get(name).has("job") || byTable.get(name).get("job").isNull()) {
          assertThat(table.currentSnapshot().snapshotId())
              .as(name)
              .isEqualTo(snapshotsBefore.get(name));
        }
      }
    }
  }

  /**
   * A second sweep finds nothing worth a job: one aligned row per table, none compacted, exit 0.
   */
  @Test
  void aSecondSweepPrintsEveryTableAndCompactsNothing() {
    List<String> args = new ArrayList<>(List.of("sweep"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "ops"));
    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .matches("table +score +decision +job +files +score after +care +reason");
    assertThat(lines)
        .anyMatch(
            line ->
                line.matches(
                    "ops\\.optout +27 +SKIP_DISABLED +- +15 +- +- +icecompact.enabled is false"));
    assertThat(lines.get(lines.size() - 1))
        .startsWith("3 tables assessed in ops, 0 chosen to compact; care steps: none; decisions: ");
  }

  /**
   * Issue 28: {@code --assess-within} bounds the assessment; with no time at all nothing is listed
   * or compacted, and the sweep says which namespaces it did not assess.
   */
  @Test
  void aSweepOutOfAssessmentTimeSaysWhatItDidNotAssess() {
    List<String> args = new ArrayList<>(List.of("sweep"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "ops", "--assess-within", "0"));
    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(lines.size() - 2))
        .startsWith("0 tables assessed in ops, 0 chosen to compact");
    assertThat(lines.get(lines.size() - 1))
        .isEqualTo("not assessed (--assess-within): 0 tables; namespaces not listed: ops");
  }

  private static List<String> health() {
    List<String> args = new ArrayList<>(List.of("health"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "lab", "--namespace", "ops"));
    return args;
  }
}
