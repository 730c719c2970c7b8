package io.icecompact.statemachine;

import java.util.List;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.LocalStateMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenario 8: the definition is valid States Language once its placeholders are filled. */
class CompactionDefinitionTest {
  @TempDir Path dir;

  @Test
  void everyPlaceholderIsAFunctionArnAndTheSubstitutedDefinitionIsValid() throws Exception {
    assertThat(CompactionDefinition.placeholders(CompactionDefinition.sourceText()))
        .containsExactlyInAnyOrderElementsOf(
            java.util.List.of(
                "AcquireLeaseFunctionArn",
                "PlanRewriteFunctionArn",
                "PlanRewriteFunctionArn",
                "RewriteGroupFunctionArn",
                "RecordGroupFailureFunctionArn",
                "CommitSnapshotFunctionArn",
                "CareForTableFunctionArn",
                "ReleaseLeaseFunctionArn",
                "ReleaseLeaseFunctionArn"));

    Path substituted = CompactionDefinition.writeForLocalLambda(dir);

    String text = Files.readString(substituted);
    assertThat(text).doesNotContain("${").contains("\"" + LocalLambda.arn("RewriteGroup") + "\"");
    try (LocalStateMachine validator = new LocalStateMachine(java.net.URI.create("http://127.0.0.1:1"))) {
      assertThat(validator.validate(substituted)).isEmpty();
    }
  }

  @Test
  void aPlaceholderLeftOrMissingFailsTheSubstitution() {
    Map<String, String> substitutions = new LinkedHashMap<>(CompactionDefinition.localLambdaSubstitutions());
    substitutions.remove("CommitSnapshotFunctionArn");
    assertThatThrownBy(() -> CompactionDefinition.substitute(CompactionDefinition.sourceText(), substitutions))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("placeholders left after substitution: [CommitSnapshotFunctionArn]");

    substitutions.put("CommitSnapshotFunctionArn", LocalLambda.arn("CommitSnapshot"));
    substitutions.put("CompactFunctionArn", LocalLambda.arn("Compact"));
    assertThatThrownBy(() -> CompactionDefinition.substitute(CompactionDefinition.sourceText(), substitutions))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the definition has no placeholder ${CompactFunctionArn}");
  }

  /**
   * As AWS runs it: every Lambda Task (in both definitions) retries throttling first, on its own long
   * schedule, then AWS's recommended Lambda service errors; the execution has a timeout (the
   * ExecutionsTimedOut alarm watches it) no shorter than the longest lease an input may ask for.
   */
  @Test
  void everyLambdaTaskRetriesThrottlingFirstAndTheRecommendedServiceErrors() throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode compaction = json.readTree(CompactionDefinition.sourceText());
    JsonNode sweep = json.readTree(Files.readString(CompactionDefinition.source("sweep.asl.json")));
    Map<String, JsonNode> tasks = new LinkedHashMap<>();
    lambdaTasks(compaction.get("States"), tasks);
    lambdaTasks(sweep.get("States"), tasks);

    assertThat(tasks).containsKeys("AcquireLease", "PlanRewrite", "RewriteGroup", "RecordGroupFailure",
        "CommitSnapshot", "CareForTable", "ReleaseLease", "ReleaseLeaseAfterFailure", "AssessTables");
    tasks.forEach((name, task) -> {
      JsonNode first = task.get("Retry").get(0);
      assertThat(first.get("ErrorEquals")).as(name).containsExactly(json.getNodeFactory().textNode("Lambda.TooManyRequestsException"));
      assertThat(first.get("MaxAttempts").asInt()).as(name).isGreaterThanOrEqualTo(10);
      assertThat(first.get("JitterStrategy").asText()).as(name).isEqualTo("FULL");
      List<String> errors = new java.util.ArrayList<>();
      task.get("Retry").get(1).get("ErrorEquals").forEach(e -> errors.add(e.asText()));
      if (!errors.equals(List.of("States.ALL"))) {
        assertThat(errors).as(name).contains("Lambda.ServiceException", "Lambda.AWSLambdaException",
            "Lambda.SdkClientException", "Lambda.ClientExecutionTimeoutException");
      }
    });
    // a lease write whose answer timed out is retried: the same execution gets the same lease back
    assertThat(tasks.get("AcquireLease").get("Retry").get(1).get("ErrorEquals").toString()).contains("\"States.Timeout\"");
    assertThat(compaction.get("TimeoutSeconds").asInt()).isGreaterThanOrEqualTo(
        json.readTree(Files.readString(CompactionDefinition.source("execution-input.schema.json")))
            .get("properties").get("lease_ttl_seconds").get("maximum").asInt());
  }

  /**
   * Issue 28, as AWS runs the sweep: it has a timeout of its own (a sweep stuck on its children does not
   * run for a year), longer than one compaction may take; CompactTable retries StartExecution refused for
   * the account's open-execution limit, with backoff and jitter, and nothing else (a child that ran and
   * failed is recorded, not started again); each child's input is the entry merged with the plan's one
   * shared copy of the catalog.
   */
  @Test
  void theSweepHasATimeoutAndRetriesTheExecutionLimitWhenStartingACompaction() throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode compaction = json.readTree(CompactionDefinition.sourceText());
    JsonNode sweep = json.readTree(Files.readString(CompactionDefinition.source("sweep.asl.json")));

    assertThat(sweep.path("TimeoutSeconds").asInt()).isGreaterThan(compaction.get("TimeoutSeconds").asInt())
        .isLessThanOrEqualTo(7 * 86400);
    JsonNode map = sweep.get("States").get("CompactTables");
    JsonNode compactTable = map.get("ItemProcessor").get("States").get("CompactTable");
    JsonNode retries = compactTable.get("Retry");
    assertThat(retries).as("CompactTable's Retry").hasSize(1);
    JsonNode retry = retries.get(0);
    List<String> errors = new java.util.ArrayList<>();
    retry.get("ErrorEquals").forEach(e -> errors.add(e.asText()));
    assertThat(errors).contains("StepFunctions.ExecutionLimitExceeded")
        .doesNotContain("States.ALL", "States.TaskFailed", "States.Timeout");
    assertThat(retry.get("BackoffRate").asDouble()).isGreaterThan(1);
    assertThat(retry.get("MaxAttempts").asInt()).isGreaterThanOrEqualTo(3);
    assertThat(retry.get("JitterStrategy").asText()).isEqualTo("FULL");
    assertThat(retry.get("MaxDelaySeconds").asInt()).isPositive();
    assertThat(map.get("ItemSelector").get("input.$").asText())
        .isEqualTo("States.JsonMerge($.shared_input, $$.Map.Item.Value.input, false)");
  }

  private static void lambdaTasks(JsonNode states, Map<String, JsonNode> tasks) {
    states.fields().forEachRemaining(entry -> {
      JsonNode state = entry.getValue();
      if (state.has("ItemProcessor")) {
        lambdaTasks(state.get("ItemProcessor").get("States"), tasks);
      }
      if ("Task".equals(state.path("Type").asText()) && state.path("Resource").asText().startsWith("${")) {
        tasks.put(entry.getKey(), state);
      }
    });
  }
}
