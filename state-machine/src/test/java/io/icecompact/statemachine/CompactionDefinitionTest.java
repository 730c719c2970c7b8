package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.LocalStateMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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
    try (LocalStateMachine validator =
        new LocalStateMachine(java.net.URI.create("http://127.0.0.1:1"))) {
      assertThat(validator.validate(substituted)).isEmpty();
    }
  }

  @Test
  void aPlaceholderLeftOrMissingFailsTheSubstitution() {
    Map<String, String> substitutions =
        new LinkedHashMap<>(CompactionDefinition.localLambdaSubstitutions());
    substitutions.remove("CommitSnapshotFunctionArn");
    assertThatThrownBy(
            () -> CompactionDefinition.substitute(CompactionDefinition.sourceText(), substitutions))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("placeholders left after substitution: [CommitSnapshotFunctionArn]");

    substitutions.put("CommitSnapshotFunctionArn", LocalLambda.arn("CommitSnapshot"));
    substitutions.put("CompactFunctionArn", LocalLambda.arn("Compact"));
    assertThatThrownBy(
            () -> CompactionDefinition.substitute(CompactionDefinition.sourceText(), substitutions))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the definition has no placeholder ${CompactFunctionArn}");
  }

  /**
   * As AWS runs it: every Lambda Task (in both definitions) retries throttling first, on its own
   * long schedule, then AWS's recommended Lambda service errors; the execution has a timeout (the
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

    assertThat(tasks)
        .containsKeys(
            "AcquireLease",
            "PlanRewrite",
            "RewriteGroup",
            "RecordGroupFailure",
            "CommitSnapshot",
            "CareForTable",
            "ReleaseLease",
            "ReleaseLeaseAfterFailure",
            "AssessTables");
    tasks.forEach(
        (name, task) -> {
          JsonNode first = task.get("Retry").get(0);
          assertThat(first.get("ErrorEquals"))
              .as(name)
              .containsExactly(json.getNodeFactory().textNode("Lambda.TooManyRequestsException"));
          assertThat(first.get("MaxAttempts").asInt()).as(name).isGreaterThanOrEqualTo(10);
          assertThat(first.get("JitterStrategy").asText()).as(name).isEqualTo("FULL");
          List<String> errors = new java.util.ArrayList<>();
          task.get("Retry").get(1).get("ErrorEquals").forEach(e -> errors.add(e.asText()));
          if (!errors.equals(List.of("States.ALL"))) {
            assertThat(errors)
                .as(name)
                .contains(
                    "Lambda.ServiceException",
                    "Lambda.AWSLambdaException",
                    "Lambda.SdkClientException",
                    "Lambda.ClientExecutionTimeoutException");
          }
        });
    // a lease write whose answer timed out is retried, whichever side reports the timeout first
    // (the
    // function's timeout equals the state's): the same execution gets the same lease back
    assertThat(retried(tasks.get("AcquireLease")))
        .contains("States.Timeout", "Sandbox.Timedout", "Lambda.Unknown");
    assertThat(compaction.get("TimeoutSeconds").asInt())
        .isGreaterThanOrEqualTo(
            json.readTree(
                    Files.readString(CompactionDefinition.source("execution-input.schema.json")))
                .get("properties")
                .get("lease_ttl_seconds")
                .get("maximum")
                .asInt());
  }

  /**
   * Issue 28, as AWS runs the sweep: it has a timeout of its own (a sweep stuck on its children
   * does not run for a year), longer than one compaction may take; CompactTable retries
   * StartExecution refused for the account's open-execution limit, with backoff and jitter, and
   * nothing else (a child that ran and failed is recorded, not started again); each child's input
   * is the entry merged with the plan's one shared copy of the catalog.
   */
  @Test
  void theSweepHasATimeoutAndRetriesTheExecutionLimitWhenStartingACompaction() throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode compaction = json.readTree(CompactionDefinition.sourceText());
    JsonNode sweep = json.readTree(Files.readString(CompactionDefinition.source("sweep.asl.json")));

    assertThat(sweep.path("TimeoutSeconds").asInt())
        .isGreaterThan(compaction.get("TimeoutSeconds").asInt())
        .isLessThanOrEqualTo(7 * 86400);
    JsonNode map = sweep.get("States").get("CompactTables");
    JsonNode compactTable = map.get("ItemProcessor").get("States").get("CompactTable");
    JsonNode retries = compactTable.get("Retry");
    assertThat(retries).as("CompactTable's Retry").hasSize(1);
    JsonNode retry = retries.get(0);
    List<String> errors = new java.util.ArrayList<>();
    retry.get("ErrorEquals").forEach(e -> errors.add(e.asText()));
    assertThat(errors)
        .contains("StepFunctions.ExecutionLimitExceeded")
        .doesNotContain("States.ALL", "States.TaskFailed", "States.Timeout");
    assertThat(retry.get("BackoffRate").asDouble()).isGreaterThan(1);
    assertThat(retry.get("MaxAttempts").asInt()).isGreaterThanOrEqualTo(3);
    assertThat(retry.get("JitterStrategy").asText()).isEqualTo("FULL");
    assertThat(retry.get("MaxDelaySeconds").asInt()).isPositive();
    assertThat(map.get("ItemSelector").get("input.$").asText())
        .isEqualTo("States.JsonMerge($.shared_input, $$.Map.Item.Value.input, false)");
  }

  /**
   * TransientException (S3 SlowDown/5xx, Glue/DynamoDB throttling after the SDK's retries) is
   * retried on the throttling schedule by every step that is safe and cheap to repeat: all but the
   * worker (a retry re-runs a rewrite of up to 15 minutes; the embedded runner mirrors its 3
   * attempts) and RecordGroupFailure (which retries every error). Every top-level Task catches
   * every error, and ReleaseLease's Catch keeps the job's result: the execution of a committed job
   * does not fail because the lease could not be released.
   */
  @Test
  void transientErrorsAreRetriedOnTheThrottlingScheduleAndAFailedReleaseKeepsTheResult()
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode compaction = json.readTree(CompactionDefinition.sourceText());
    Map<String, JsonNode> tasks = new LinkedHashMap<>();
    lambdaTasks(compaction.get("States"), tasks);
    String transientError = io.icecompact.core.error.TransientException.class.getName();

    for (String name :
        List.of(
            "AcquireLease",
            "PlanRewrite",
            "LoadStoredPlan",
            "CommitSnapshot",
            "CareForTable",
            "ReleaseLease",
            "ReleaseLeaseAfterFailure")) {
      JsonNode task = tasks.get(name);
      JsonNode throttling = task.get("Retry").get(0);
      JsonNode retrier = retrierOf(task, transientError);
      assertThat(retrier).as(name).isNotNull();
      for (String field :
          List.of(
              "IntervalSeconds",
              "MaxAttempts",
              "BackoffRate",
              "MaxDelaySeconds",
              "JitterStrategy")) {
        assertThat(retrier.get(field)).as(name + " " + field).isEqualTo(throttling.get(field));
      }
      assertThat(retrier.get("MaxAttempts").asInt()).as(name).isGreaterThanOrEqualTo(10);
    }
    assertThat(retrierOf(tasks.get("RewriteGroup"), transientError).get("MaxAttempts").asInt())
        .isEqualTo(3);

    // DynamoDB in a brownout answers 5xx (TransientException) or not at all (a timeout, reported by
    // either side)
    for (String name : List.of("ReleaseLease", "ReleaseLeaseAfterFailure")) {
      for (String error : List.of("States.Timeout", "Sandbox.Timedout", "Lambda.Unknown")) {
        assertThat(retrierOf(tasks.get(name), error))
            .as(name + " " + error)
            .isSameAs(retrierOf(tasks.get(name), transientError));
      }
    }

    JsonNode states = compaction.get("States");
    states
        .fields()
        .forEachRemaining(
            entry -> {
              if (tasks.containsKey(entry.getKey())) {
                JsonNode catchers = entry.getValue().get("Catch");
                assertThat(catchers).as(entry.getKey() + " has a Catch").isNotNull();
                assertThat(catchers.get(catchers.size() - 1).get("ErrorEquals").toString())
                    .as(entry.getKey())
                    .isEqualTo("[\"States.ALL\"]");
              }
            });
    JsonNode releaseCatch = tasks.get("ReleaseLease").get("Catch").get(0);
    JsonNode notReleased = states.get(releaseCatch.get("Next").asText());
    assertThat(notReleased.get("Type").asText()).isEqualTo("Pass");
    assertThat(notReleased.get("ResultPath").asText()).isEqualTo("$.result.lease_release");
    assertThat(notReleased.get("Next").asText())
        .isEqualTo(tasks.get("ReleaseLease").get("Next").asText())
        .isEqualTo("Done");
    assertThat(states.get("Done").get("Type").asText()).isEqualTo("Succeed");
  }

  /** Every error name a task's retriers list. */
  private static List<String> retried(JsonNode task) {
    List<String> errors = new java.util.ArrayList<>();
    task.get("Retry")
        .forEach(retrier -> retrier.get("ErrorEquals").forEach(e -> errors.add(e.asText())));
    return errors;
  }

  /**
   * The first retrier of {@code task} that lists {@code error} (Step Functions uses the first that
   * matches).
   */
  private static JsonNode retrierOf(JsonNode task, String error) {
    for (JsonNode retrier : task.get("Retry")) {
      for (JsonNode listed : retrier.get("ErrorEquals")) {
        if (listed.asText().equals(error)) {
          return retrier;
        }
      }
    }
    return null;
  }

  private static void lambdaTasks(JsonNode states, Map<String, JsonNode> tasks) {
    states
        .fields()
        .forEachRemaining(
            entry -> {
              JsonNode state = entry.getValue();
              if (state.has("ItemProcessor")) {
                lambdaTasks(state.get("ItemProcessor").get("States"), tasks);
              }
              if ("Task".equals(state.path("Type").asText())
                  && state.path("Resource").asText().startsWith("${")) {
                tasks.put(entry.getKey(), state);
              }
            });
  }
}
