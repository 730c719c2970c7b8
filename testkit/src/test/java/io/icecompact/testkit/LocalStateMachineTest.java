package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.testkit.fixtures.JsonHandler;
import io.icecompact.testkit.fixtures.PermanentFailure;
import io.icecompact.testkit.fixtures.TransientFailure;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Executes small definitions end to end: node interpreter → LocalLambda → Java handlers. */
class LocalStateMachineTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LocalLambda lambda;
  private LocalStateMachine stepFunctions;

  @BeforeEach
  void start() {
    lambda = new LocalLambda();
    stepFunctions = new LocalStateMachine(lambda).timeout(Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    stepFunctions.close();
    lambda.close();
  }

  static Path definition(String name) {
    try {
      return Path.of(LocalStateMachineTest.class.getResource("/state-machines/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void retryCatchAndMapWithMaxConcurrency() throws Exception {
    AtomicInteger planCalls = new AtomicInteger();
    lambda.register(
        "plan",
        (JsonHandler)
            (input, context) -> {
              if (planCalls.incrementAndGet() == 1) {
                throw new TransientFailure("catalog throttled");
              }
              return Map.of("groups", List.of(10, 11, 12, 13, 14));
            });
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    List<String> requestIds = java.util.Collections.synchronizedList(new ArrayList<>());
    lambda.register(
        "rewrite",
        (JsonHandler)
            (input, context) -> {
              requestIds.add(context.getAwsRequestId());
              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              try {
                Thread.sleep(150);
              } finally {
                inFlight.decrementAndGet();
              }
              int group = input.get("group").asInt();
              if (group == 13) {
                throw new PermanentFailure("group 13 has a corrupt file");
              }
              return Map.of(
                  "group",
                  group,
                  "index",
                  input.get("index").asInt(),
                  "job",
                  input.get("job").asText(),
                  "rows",
                  group * 100);
            });
    lambda.register(
        "commit",
        (JsonHandler)
            (input, context) -> {
              List<Integer> committed = new ArrayList<>();
              List<Integer> failed = new ArrayList<>();
              for (JsonNode result : input.get("results")) {
                (result.path("failed").asBoolean() ? failed : committed)
                    .add(result.get("group").asInt());
              }
              return Map.of(
                  "job", input.get("job").asText(), "committed", committed, "failed", failed);
            });

    LocalStateMachine.ExecutionResult result =
        stepFunctions.run(definition("pipeline.json"), "{\"job\": \"job-1\"}");

    assertThat(result.status()).isEqualTo("SUCCEEDED");
    assertThat(result.error()).isNull();
    assertThat(result.cause()).isNull();
    assertThat(result.outputJson())
        .isEqualTo(
            JSON.readTree("{\"job\":\"job-1\",\"committed\":[10,11,12,14],\"failed\":[13]}"));
    // The path through the top-level states (retries and Map iterations are not entries of their
    // own).
    assertThat(result.states()).containsExactly("Plan", "Rewrite groups", "Commit");
    assertThat(result.lastState()).isEqualTo("Commit");
    assertThat(lambda.invocations("plan")).isEqualTo(2); // failed once, retried once
    assertThat(lambda.invocations("rewrite")).isEqualTo(5); // Catch does not retry
    assertThat(lambda.invocations("commit")).isEqualTo(1);
    assertThat(lambda.invocations("arn:aws:lambda:us-east-1:123456789012:function:commit"))
        .isEqualTo(1);
    assertThat(maxInFlight.get()).isEqualTo(2); // MaxConcurrency
    assertThat(requestIds).hasSize(5).doesNotHaveDuplicates();

    // What the Map iterations and the Catch handed on: the payload commit received.
    JsonNode commitInput = JSON.readTree(lambda.payloads("commit").get(0));
    assertThat(commitInput.get("plan")).isEqualTo(JSON.readTree("{\"groups\":[10,11,12,13,14]}"));
    assertThat(commitInput.get("results").get(0))
        .isEqualTo(JSON.readTree("{\"group\":10,\"index\":0,\"job\":\"job-1\",\"rows\":1000}"));
    JsonNode gaveUp = commitInput.get("results").get(3);
    assertThat(gaveUp.get("group").asInt()).isEqualTo(13);
    assertThat(gaveUp.get("failed").asBoolean()).isTrue();
    assertThat(gaveUp.get("error").asText()).isEqualTo(PermanentFailure.class.getName());
    // Cause is the function's error document, as Step Functions passes it on.
    JsonNode cause = JSON.readTree(gaveUp.get("cause").asText());
    assertThat(cause.get("errorType").asText()).isEqualTo(PermanentFailure.class.getName());
    assertThat(cause.get("errorMessage").asText()).isEqualTo("group 13 has a corrupt file");
    assertThat(cause.get("stackTrace").get(0).asText()).contains("LocalStateMachineTest");
  }

  @Test
  void retriesRunOutAndTheExecutionFailsWithTheFunctionsErrorType() throws Exception {
    lambda.register(
        "plan",
        (JsonHandler)
            (input, context) -> {
              throw new TransientFailure("still throttled");
            });

    LocalStateMachine.ExecutionResult result =
        stepFunctions
            .retryInterval(Duration.ZERO)
            .run(definition("pipeline.json"), "{\"job\": \"job-2\"}");

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.output()).isNull();
    assertThat(result.error()).isEqualTo(TransientFailure.class.getName());
    assertThat(result.states()).containsExactly("Plan");
    JsonNode cause = JSON.readTree(result.cause());
    assertThat(cause.get("errorType").asText()).isEqualTo(TransientFailure.class.getName());
    assertThat(cause.get("errorMessage").asText()).isEqualTo("still throttled");
    assertThat(lambda.invocations("plan")).isEqualTo(3); // 1 + MaxAttempts 2
    assertThat(lambda.invocations("rewrite")).isZero();
  }

  @Test
  void anUncaughtErrorInOneMapIterationFailsTheExecution() {
    lambda.register(
        "work",
        (JsonHandler)
            (input, context) -> {
              if (input.asInt() == 2) {
                throw new IllegalArgumentException("bad item 2");
              }
              return input.asInt() * 2;
            });

    LocalStateMachine.ExecutionResult result =
        stepFunctions.run(definition("map-failure.json"), "[1, 2, 3]");

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.error()).isEqualTo("java.lang.IllegalArgumentException");
    // MaxConcurrency 1: items run in order and the failure stops the Map before item 3.
    assertThat(lambda.payloads("work")).containsExactly("1", "2");
  }

  @Test
  void aBrokenDefinitionIsRejectedWithMessages() {
    assertThat(stepFunctions.validate(definition("pipeline.json"))).isEmpty();
    stepFunctions.requireValid(definition("pipeline.json"));

    List<String> errors = stepFunctions.validate(definition("broken.json"));

    assertThat(errors)
        .containsExactlyInAnyOrder(
            "MISSING_TRANSITION_TARGET: State Commit is not reachable",
            "MISSING_TRANSITION_TARGET: Missing 'StartAt'|'Next'|'Default' target: Comit");
    assertThatThrownBy(() -> stepFunctions.requireValid(definition("broken.json")))
        .isInstanceOf(LocalStateMachine.InvalidDefinitionException.class)
        .hasMessageContaining("Missing 'StartAt'|'Next'|'Default' target: Comit");
  }

  @Test
  void anInterpreterThatRefusesTheDefinitionThrows() {
    assertThatThrownBy(() -> stepFunctions.run(definition("broken.json"), "{}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("definition rejected");
  }
}
