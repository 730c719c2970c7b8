package io.icecompact.planner.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.policy.TablePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SweepPlanTest {
  private static final Map<String, String> CATALOG =
      Map.of("type", "jdbc", "uri", "jdbc:sqlite:/tmp/c.db");
  private static final String SWEEP = "sweep-2026-12-02T06-00-00Z";

  private static SweepInput input(int maxTables) {
    return new SweepInput(CATALOG, List.of("lab"), maxTables, 3, "s3://bucket/work", 8, null);
  }

  private static TableAssessment assessment(
      String table, double score, Decision decision, String where) {
    TableHealth health =
        new TableHealth(table, 2, 1L, 10, 1000, 100, 2, 8, 0, 0, 0, 2, null, score);
    TablePolicy policy =
        new TablePolicy(
            decision != Decision.SKIP_DISABLED,
            Duration.ZERO,
            where,
            Map.of("partial-progress.enabled", "true", "min-input-files", "5"),
            TablePolicy.DEFAULT_STEPS);
    return new TableAssessment(table, health, policy, decision, "because", null);
  }

  @Test
  void theTopMaxTablesToCompactCarryTheirPolicyAndTheSweepsSettingsAndEveryDecisionIsCounted() {
    List<TableAssessment> ranked =
        List.of(
            assessment("lab.stream", 108, Decision.COMPACT, "day >= '2026-12-01'"),
            assessment("lab.dv3", 28, Decision.COMPACT, null),
            assessment("lab.leftover", 16, Decision.COMPACT, null),
            assessment("lab.hourly", 50, Decision.SKIP_NO_OP, null),
            assessment("ops.optout", 27, Decision.SKIP_DISABLED, null));

    SweepPlan plan = SweepPlan.of(ranked, input(2), SWEEP);

    assertThat(plan.tablesAssessed()).isEqualTo(5);
    assertThat(plan.decisions())
        .containsEntry(Decision.COMPACT, 3)
        .containsEntry(Decision.SKIP_NO_OP, 1)
        .containsEntry(Decision.SKIP_DISABLED, 1)
        .containsEntry(Decision.SKIP_TOO_SOON, 0)
        .containsEntry(Decision.SKIP_INVALID_POLICY, 0)
        .containsEntry(Decision.SKIP_UNREADABLE, 0);
    assertThat(plan.compactCount()).isEqualTo(2);
    assertThat(plan.maxConcurrentTables()).isEqualTo(3);
    assertThat(plan.toCompact())
        .extracting(SweepPlan.TableToCompact::table)
        .containsExactly("lab.stream", "lab.dv3");
    SweepPlan.TableToCompact first = plan.toCompact().get(0);
    assertThat(first.score()).isEqualTo(108);
    assertThat(first.input())
        .isEqualTo(
            new SweepPlan.CompactionInput(
                "lab.stream",
                ranked.get(0).policy().options(),
                "day >= '2026-12-01'",
                ranked.get(0).policy().steps()));
    // the sweep's part once, not per table
    assertThat(plan.sharedInput())
        .isEqualTo(new SweepPlan.SharedInput(CATALOG, "s3://bucket/work", 8));
    assertThat(plan.notAssessed().count()).isZero();
    assertThat(plan.notPlanned().count()).isZero();
  }

  /**
   * A conversion is started as a compaction is, with {@code action} in its input; the merged input
   * is valid against the compaction state machine's execution input schema.
   */
  @Test
  void aConversionOfEqualityDeletesIsStartedWithItsActionInTheCompactionsInput() throws Exception {
    List<TableAssessment> ranked =
        List.of(
            assessment("cdc.orders", 30, Decision.CONVERT_EQUALITY_DELETES, null),
            assessment("lab.stream", 20, Decision.COMPACT, null),
            assessment("lab.hourly", 50, Decision.SKIP_NO_OP, null));
    ranked = new ArrayList<>(ranked);
    ranked.sort(FleetAssessor.RANKING);

    SweepPlan plan = SweepPlan.of(ranked, input(5), SWEEP);

    assertThat(plan.compactCount()).isEqualTo(2);
    assertThat(plan.decisions())
        .containsEntry(Decision.CONVERT_EQUALITY_DELETES, 1)
        .containsEntry(Decision.COMPACT, 1);
    assertThat(plan.toCompact())
        .extracting(SweepPlan.TableToCompact::table)
        .containsExactly("cdc.orders", "lab.stream");
    JsonNode json = JobJson.mapper().valueToTree(plan);
    JsonNode convert = json.get("to_compact").get(0).get("input");
    JsonNode rewrite = json.get("to_compact").get(1).get("input");
    assertThat(convert.get("action").asText()).isEqualTo("convert-equality-deletes");
    assertThat(rewrite.has("action")).isFalse(); // a rewrite's input is as before

    // what the sweep's Map gives the compaction: States.JsonMerge(shared_input, input)
    com.networknt.schema.JsonSchema schema;
    try (java.io.InputStream in =
        java.nio.file.Files.newInputStream(
            java.nio.file.Path.of("..", "state-machine", "execution-input.schema.json"))) {
      schema =
          com.networknt.schema.JsonSchemaFactory.getInstance(
                  com.networknt.schema.SpecVersion.VersionFlag.V202012)
              .getSchema(in);
    }
    for (JsonNode entry : List.of(convert, rewrite)) {
      com.fasterxml.jackson.databind.node.ObjectNode merged =
          ((com.fasterxml.jackson.databind.node.ObjectNode) json.get("shared_input")).deepCopy();
      merged.setAll((com.fasterxml.jackson.databind.node.ObjectNode) entry);
      assertThat(schema.validate(merged)).as(merged.toString()).isEmpty();
    }
  }

  @Test
  void theInputIsTheCompactionsExecutionInputInSnakeCaseWithoutAbsentFields() {
    SweepInput bare = new SweepInput(CATALOG, List.of("lab"), null, null, null, null, null);
    JsonNode json =
        JobJson.mapper()
            .valueToTree(
                SweepPlan.of(
                    List.of(assessment("lab.stream", 108, Decision.COMPACT, null)), bare, SWEEP));

    assertThat(json.get("compact_count").asInt()).isEqualTo(1);
    assertThat(json.get("max_concurrent_tables").asInt())
        .isEqualTo(SweepInput.MAX_CONCURRENT_TABLES_DEFAULT);
    assertThat(json.get("decisions").get("COMPACT").asInt()).isEqualTo(1);
    JsonNode item = json.get("to_compact").get(0);
    assertThat(item.get("execution_name").asText()).startsWith("lab.stream-" + SWEEP + "-");
    assertThat(item.get("input").fieldNames())
        .toIterable()
        .containsExactlyInAnyOrder("table", "options", "care");
    // merged into each input by the sweep's Map: absent fields left out, so the merge adds no nulls
    assertThat(json.get("shared_input").fieldNames())
        .toIterable()
        .containsExactly("catalog_properties");
    assertThat(json.get("not_assessed").get("count").asInt()).isZero();
    assertThat(json.get("not_planned").get("count").asInt()).isZero();
    assertThat(item.get("input").get("options").get("min-input-files").asText()).isEqualTo("5");
    // the policy's care steps, by the names icecompact.steps and the execution input use
    List<String> care = new ArrayList<>();
    item.get("input").get("care").forEach(step -> care.add(step.asText()));
    assertThat(care).containsExactly("rewrite-manifests");
  }

  /** 10,000 tables assessed: the plan's JSON stays the size of max_tables items. */
  @Test
  void thePlanIsBoundedByMaxTablesNotByTheTablesAssessed() {
    List<TableAssessment> ranked = new ArrayList<>();
    IntStream.range(0, 10_000)
        .forEach(i -> ranked.add(assessment("lab.t" + i, 10_000 - i, Decision.COMPACT, null)));

    SweepPlan plan = SweepPlan.of(ranked, input(100), SWEEP);

    assertThat(plan.tablesAssessed()).isEqualTo(10_000);
    assertThat(plan.toCompact()).hasSize(100);
    assertThat(JobJson.toBytes(plan).length).isLessThan(64 * 1024);
  }

  /**
   * Issue 28: 100 tables whose where (a table property) is 2 KB each would make a 200 KB plan.
   * Entries stop being added before the plan passes its byte budget, and the plan says which were
   * left out; a smaller entry after them still fits.
   */
  @Test
  void entriesThatWouldPutThePlanOverItsByteBudgetAreLeftOutAndNamed() {
    List<TableAssessment> ranked = new ArrayList<>();
    IntStream.range(0, 99)
        .forEach(
            i ->
                ranked.add(
                    assessment(
                        "lab.t" + i,
                        1000 - i,
                        Decision.COMPACT,
                        "id > '" + "x".repeat(2000) + "'")));
    ranked.add(assessment("lab.small", 1, Decision.COMPACT, null));

    SweepPlan plan = SweepPlan.of(ranked, input(100), SWEEP);

    assertThat(JobJson.toBytes(plan).length).isLessThanOrEqualTo(SweepPlan.PLAN_BYTES_MAX);
    assertThat(plan.compactCount()).isEqualTo(plan.toCompact().size()).isBetween(40, 99);
    assertThat(plan.notPlanned().count()).isEqualTo(100 - plan.compactCount());
    assertThat(plan.notPlanned().tables())
        .hasSize(FleetAssessment.NAMES_LISTED_MAX)
        .startsWith("lab.t" + (plan.compactCount() - 1));
    assertThat(plan.notPlanned().reason()).contains(String.valueOf(SweepPlan.PLAN_BYTES_MAX));
    assertThat(plan.toCompact())
        .extracting(SweepPlan.TableToCompact::table)
        .contains("lab.small", "lab.t0");
    assertThat(plan.decisions()).containsEntry(Decision.COMPACT, 100);
  }

  /** Issue 28: what the assessment had no time for is in the plan, counted and named. */
  @Test
  void tablesNotAssessedBeforeTheDeadlineAreInThePlan() {
    FleetAssessment.NotAssessed left =
        new FleetAssessment.NotAssessed(
            2, List.of("lab.a", "lab.b"), List.of("ops"), "the assessment reached its deadline");
    SweepPlan plan =
        SweepPlan.of(
            new FleetAssessment(
                List.of(assessment("lab.stream", 108, Decision.COMPACT, null)), left),
            input(10),
            SWEEP);

    JsonNode json = JobJson.mapper().valueToTree(plan);
    assertThat(json.get("tables_assessed").asInt()).isEqualTo(1);
    assertThat(json.get("not_assessed").get("count").asInt()).isEqualTo(2);
    assertThat(json.get("not_assessed").get("tables")).hasSize(2);
    assertThat(json.get("not_assessed").get("namespaces").get(0).asText()).isEqualTo("ops");
    assertThat(json.get("not_assessed").get("reason").asText()).contains("deadline");
  }

  @Test
  void aTableListedTwiceIsCountedAndCompactedOnce() {
    TableAssessment stream = assessment("lab.stream", 108, Decision.COMPACT, null);

    SweepPlan plan = SweepPlan.of(List.of(stream, stream), input(10), SWEEP);

    assertThat(plan.tablesAssessed()).isEqualTo(1);
    assertThat(plan.toCompact()).hasSize(1);
  }

  @Test
  void executionNamesAreValidForStepFunctionsAndUniquePerTableAndSweep() {
    String longTable = "analytics_" + "x".repeat(60) + ".orders";
    String longSweep =
        "a1b2c3d4-e5f6-4711-8899-aabbccddeeff-scheduled-by-eventbridge-for-the-nightly-run";
    List<String> names =
        List.of(
            SweepPlan.executionName(longTable, longSweep),
            SweepPlan.executionName(longTable + "2", longSweep),
            SweepPlan.executionName(longTable, longSweep + "2"),
            SweepPlan.executionName("lab.a b", SWEEP),
            SweepPlan.executionName("lab.a:b", SWEEP),
            SweepPlan.executionName("\"weird\".t{1}$%", "sweep/éé"));

    assertThat(names)
        .doesNotHaveDuplicates()
        .allSatisfy(
            name -> assertThat(name).hasSizeLessThanOrEqualTo(80).matches("[A-Za-z0-9._-]+"));
    assertThat(SweepPlan.executionName("lab.stream", SWEEP))
        .startsWith("lab.stream-" + SWEEP + "-");
    assertThat(SweepPlan.executionName("lab.stream", SWEEP))
        .isEqualTo(SweepPlan.executionName("lab.stream", SWEEP));
  }
}
