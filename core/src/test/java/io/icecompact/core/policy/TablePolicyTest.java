package io.icecompact.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.InvalidTablePolicyException;
import io.icecompact.core.job.JobJson;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TablePolicyTest {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ordered_at", Types.TimestampType.withZone()));

  static TablePolicy v2(Map<String, String> properties, long deleteFiles) {
    return TablePolicy.of("db.t", properties, SCHEMA, 2, deleteFiles);
  }

  @Test
  void aTableThatSetsNothingGetsTheDecisionTreesDefaults() {
    TablePolicy policy = v2(Map.of("write.format.default", "parquet"), 0);

    assertThat(policy.enabled()).isTrue();
    assertThat(policy.minInterval()).isEqualTo(Duration.ZERO);
    assertThat(policy.where()).isNull();
    assertThat(policy.options())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("partial-progress.enabled", "true", "partial-progress.max-commits", "10"));
    assertThat(policy.steps())
        .as("only steps that cannot lose history: expiry and orphan removal are opt-in")
        .containsExactly(CareStep.REWRITE_MANIFESTS);
  }

  @Test
  void destructiveStepsRunOnlyWhereTheTableOrTheSweepListsThem() {
    List<CareStep> sweep =
        List.of(CareStep.REWRITE_MANIFESTS, CareStep.EXPIRE_SNAPSHOTS, CareStep.REMOVE_ORPHANS);
    assertThat(TablePolicy.of("db.t", Map.of(), SCHEMA, 2, 3, null).steps())
        .containsExactly(CareStep.REWRITE_MANIFESTS, CareStep.DELETE_CLEANUP)
        .doesNotContainAnyElementsOf(TablePolicy.DESTRUCTIVE_STEPS);
    assertThat(TablePolicy.of("db.t", Map.of(), SCHEMA, 2, 0, sweep).steps()).isEqualTo(sweep);
    assertThat(
            TablePolicy.of(
                    "db.t", Map.of("icecompact.steps", "rewrite-manifests"), SCHEMA, 2, 0, sweep)
                .steps())
        .as("the table's own property wins over the sweep's list")
        .containsExactly(CareStep.REWRITE_MANIFESTS);
  }

  @Test
  void aStepListFromAFlagNamesTheFlagWhenBad() {
    assertThat(TablePolicy.parseStepList("--care-steps", "expire-snapshots, remove-orphans"))
        .containsExactly(CareStep.EXPIRE_SNAPSHOTS, CareStep.REMOVE_ORPHANS);
    assertThat(TablePolicy.parseStepList("--care-steps", "none")).isEmpty();
    assertThatThrownBy(() -> TablePolicy.parseStepList("--care-steps", "vacuum"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "--care-steps names an unknown step 'vacuum'; steps: expire-snapshots, rewrite-manifests,"
                + " remove-orphans, delete-cleanup, or none");
  }

  @Test
  void aV2TableWithDeleteFilesRewritesEveryFileWithDeletesAndCleansDeletesAfter() {
    TablePolicy policy = v2(Map.of(), 3);

    assertThat(policy.options()).containsEntry("delete-file-threshold", "1");
    assertThat(policy.steps()).endsWith(CareStep.DELETE_CLEANUP);
  }

  /**
   * Without the cleanup, rewritten files would stay candidates by the deletes that still apply by
   * number.
   */
  @Test
  void aV2TableWhoseStepsLeaveOutTheCleanupGetsNoThreshold() {
    TablePolicy policy = v2(Map.of("icecompact.steps", "expire-snapshots"), 3);

    assertThat(policy.options()).doesNotContainKey("delete-file-threshold");
    assertThat(policy.steps()).containsExactly(CareStep.EXPIRE_SNAPSHOTS);
  }

  @Test
  void aV3TableWithDeletionVectorsNeedsNeitherTheThresholdNorTheCleanup() {
    TablePolicy policy = TablePolicy.of("db.t", Map.of(), SCHEMA, 3, 3);

    assertThat(policy.options()).doesNotContainKey("delete-file-threshold");
    assertThat(policy.steps()).doesNotContain(CareStep.DELETE_CLEANUP);
  }

  @Test
  void whatTheTableSetsWinsOverEveryDefault() {
    TablePolicy policy =
        v2(
            Map.of(
                "icecompact.enabled", "FALSE",
                "icecompact.min-interval", "PT6H",
                "icecompact.where", "ordered_at >= '2026-06-01'",
                "icecompact.option.partial-progress.enabled", "false",
                "icecompact.option.delete-file-threshold", "3",
                "icecompact.option.min-input-files", "2",
                "icecompact.steps", " expire-snapshots , delete-cleanup"),
            5);

    assertThat(policy.enabled()).isFalse();
    assertThat(policy.minInterval()).isEqualTo(Duration.ofHours(6));
    assertThat(policy.where()).isEqualTo("ordered_at >= '2026-06-01'");
    assertThat(policy.options())
        .containsEntry("partial-progress.enabled", "false")
        .containsEntry("delete-file-threshold", "3")
        .containsEntry("min-input-files", "2")
        .containsEntry("partial-progress.max-commits", "10");
    assertThat(policy.steps()).containsExactly(CareStep.EXPIRE_SNAPSHOTS, CareStep.DELETE_CLEANUP);
  }

  @Test
  void minIntervalInWholeMinutesAndNoSteps() {
    TablePolicy policy = v2(Map.of("icecompact.min-interval", "90", "icecompact.steps", "none"), 0);

    assertThat(policy.minInterval()).isEqualTo(Duration.ofMinutes(90));
    assertThat(policy.steps()).isEmpty();
  }

  @Test
  void badValuesNameTheTableAndTheProperty() {
    assertBad(
        Map.of("icecompact.enabled", "yes"),
        "Table db.t: property 'icecompact.enabled' is 'yes' but must be true or false");
    assertBad(
        Map.of("icecompact.min-interval", "6 hours"),
        "Table db.t: property 'icecompact.min-interval' is '6 hours' but must be an ISO-8601 duration such as"
            + " PT6H or a whole number of minutes");
    assertBad(
        Map.of("icecompact.min-interval", "-PT1H"),
        "Table db.t: property 'icecompact.min-interval' is '-PT1H' but must not be negative");
    assertBad(
        Map.of("icecompact.where", "colour = 'red'"),
        "Table db.t: property 'icecompact.where' is invalid: Malformed filter \"colour = 'red'\": unknown column"
            + " 'colour'");
    assertBad(
        Map.of("icecompact.option.min-input-files", "five"),
        "Table db.t: property 'icecompact.option.min-input-files' is invalid: 'min-input-files' is set to five but"
            + " must be a whole number");
    assertBad(
        Map.of("icecompact.option.min-input-file", "5"),
        "Table db.t: property 'icecompact.option.min-input-file' is invalid: Unknown rewrite option 'min-input-file' (did you"
            + " mean 'min-input-files'?)");
    assertBad(
        Map.of("icecompact.steps", "expire-snapshots,vacuum"),
        "Table db.t: property 'icecompact.steps' names an unknown step 'vacuum'; steps: expire-snapshots,"
            + " rewrite-manifests, remove-orphans, delete-cleanup, or none");
    assertBad(
        Map.of("icecompact.steps", "expire-snapshots,expire-snapshots"),
        "Table db.t: property 'icecompact.steps' names 'expire-snapshots' twice");
    assertBad(
        Map.of("icecompact.enable", "false"),
        "Table db.t: property 'icecompact.enable' is not an icecompact property; known: icecompact.enabled,"
            + " icecompact.equality-deletes.action, icecompact.min-interval, icecompact.steps,"
            + " icecompact.where, icecompact.option.<rewrite option>");
    assertBad(
        Map.of("icecompact.equality-deletes.action", "sometimes"),
        "Table db.t: property 'icecompact.equality-deletes.action' is 'sometimes' but must be one of"
            + " auto, rewrite, convert");
    assertBad(
        Map.of("icecompact.equality-deletes.action", ""),
        "Table db.t: property 'icecompact.equality-deletes.action' is '' but must be one of");
  }

  @Test
  void equalityDeletesActionIsAutoUnlessTheTableSaysOtherwise() {
    assertThat(v2(Map.of(), 1).equalityDeletes()).isEqualTo(EqualityDeletesAction.AUTO);
    assertThat(v2(Map.of("icecompact.equality-deletes.action", " CONVERT "), 1).equalityDeletes())
        .isEqualTo(EqualityDeletesAction.CONVERT);
    assertThat(v2(Map.of("icecompact.equality-deletes.action", "rewrite"), 1).equalityDeletes())
        .isEqualTo(EqualityDeletesAction.REWRITE);
    assertThat(JobJson.toJson(v2(Map.of("icecompact.equality-deletes.action", "convert"), 1)))
        .contains("\"equality_deletes\":\"convert\"");
  }

  @Test
  void jsonNamesTheIntervalAndStepsAsTheirPropertiesDo() {
    String json = JobJson.toJson(v2(Map.of("icecompact.min-interval", "PT6H"), 1));

    assertThat(json)
        .contains("\"min_interval\":\"PT6H\"")
        .contains("\"steps\":[\"rewrite-manifests\",\"delete-cleanup\"]");
  }

  private static void assertBad(Map<String, String> properties, String messageStart) {
    assertThatThrownBy(() -> v2(properties, 0))
        .isInstanceOf(InvalidTablePolicyException.class)
        .message()
        .startsWith(messageStart);
  }

  @Test
  void stepNamesAreTheirPropertyNames() {
    assertThat(List.of(CareStep.values()).stream().map(CareStep::propertyName))
        .containsExactly(
            "expire-snapshots", "rewrite-manifests", "remove-orphans", "delete-cleanup");
  }
}
