package io.icecompact.testkit;

import static io.icecompact.testkit.LocalStateMachineTest.definition;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.testkit.fixtures.JsonHandler;
import io.icecompact.testkit.fixtures.TransientFailure;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records what aws-local-stepfunctions 3.0.0 supports of the States Language features icecompact's
 * state machine may use, and where it differs from Step Functions. A failing assertion here means
 * the interpreter changed: update the class comment of {@link LocalStateMachine} with what it does
 * now.
 */
class StepFunctionsFeaturesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LocalLambda lambda;
  private LocalStateMachine stepFunctions;

  @BeforeEach
  void start() {
    lambda = new LocalLambda();
    lambda.register("echo", (JsonHandler) (input, context) -> input);
    lambda.register(
        "fail",
        (JsonHandler)
            (input, context) -> {
              throw new TransientFailure("always");
            });
    stepFunctions =
        new LocalStateMachine(lambda).timeout(Duration.ofSeconds(30)).retryInterval(Duration.ZERO);
  }

  @AfterEach
  void stop() {
    stepFunctions.close();
    lambda.close();
  }

  @Test
  void contextObjectResultPathNullResultSelectorLegacyMapParametersAndCatchResultPath()
      throws Exception {
    LocalStateMachine.ExecutionResult result =
        stepFunctions.run(
            definition("features.json"), "{\"job\": \"j1\", \"items\": [\"a\", \"b\"]}");

    assertThat(result.status()).isEqualTo("SUCCEEDED");
    JsonNode output = result.outputJson();

    // $$.Execution.* and $$.StateMachine.* (the runner supplies Id, Name and the state machine's
    // name).
    JsonNode context = output.get("context");
    String name = context.get("execution_name").asText();
    assertThat(context.get("execution_id").asText())
        .isEqualTo("arn:aws:states:us-east-1:123456789012:execution:features:" + name);
    assertThat(context.get("input_job").asText()).isEqualTo("j1");
    assertThat(context.get("state_machine").asText()).isEqualTo("features");

    // ResultPath null keeps the state's input (the echo result is dropped): no "answer" at the top
    // level.
    assertThat(output.has("answer")).isFalse();

    // Parameters → Task → ResultSelector (with an intrinsic) → ResultPath.
    assertThat(output.get("selected")).isEqualTo(JSON.readTree("{\"answer\":42,\"count\":2}"));

    // Legacy Map Parameters (= ItemSelector) sees $$.Map.Item.Value/Index. Inside the iteration,
    // $$.Execution.Input is the iteration's input, NOT the execution's input as in Step Functions;
    // $$.Execution.Name is kept.
    assertThat(output.get("legacy_map"))
        .isEqualTo(
            JSON.readTree(
                "[{\"value\":\"a\",\"index\":0,\"execution_input\":{\"value\":\"a\",\"index\":0},"
                    + "\"execution_name\":\""
                    + name
                    + "\"},"
                    + "{\"value\":\"b\",\"index\":1,\"execution_input\":{\"value\":\"b\",\"index\":1},"
                    + "\"execution_name\":\""
                    + name
                    + "\"}]"));

    // Catch with ResultPath: the state's input plus {Error, Cause}; Cause is the error document.
    JsonNode caught = output.get("caught");
    assertThat(caught.get("Error").asText()).isEqualTo(TransientFailure.class.getName());
    JsonNode cause = JSON.readTree(caught.get("Cause").asText());
    assertThat(cause.get("errorType").asText()).isEqualTo(TransientFailure.class.getName());
    assertThat(cause.get("errorMessage").asText()).isEqualTo("always");
    assertThat(output.get("job").asText()).isEqualTo("j1");
  }

  @Test
  void integersAboveTwoToThe53AreRoundedAndResultPathDollarNestsTheResult() throws Exception {
    long snapshotId = 6080832484641370336L; // a typical Iceberg snapshot id
    lambda.register("big", (JsonHandler) (input, context) -> java.util.Map.of("id", snapshotId));

    LocalStateMachine.ExecutionResult result =
        stepFunctions.run(definition("quirks.json"), "{\"job\": \"j1\"}");

    assertThat(result.status()).isEqualTo("SUCCEEDED");
    JsonNode output = result.outputJson();
    // Numbers are JavaScript doubles: the id comes back as the nearest double, printed shortest.
    assertThat(output.get("answer").get("id").asLong())
        .isEqualTo(6080832484641370000L)
        .isNotEqualTo(snapshotId);
    // Step Functions would make {"replaced": true} the whole state; the interpreter stores the
    // result
    // under a key "$" and keeps the input. A definition that omits ResultPath (same meaning) avoids
    // it.
    assertThat(output.get("$")).isEqualTo(JSON.readTree("{\"replaced\": true}"));
    assertThat(output.get("job").asText()).isEqualTo("j1");
  }

  @Test
  void stateRetryCountIsNotSupported() {
    lambda.register("attempt", (JsonHandler) (input, context) -> input);

    LocalStateMachine.ExecutionResult result =
        stepFunctions.run(definition("retry-count.json"), "{}");

    // Step Functions would pass {"retry_count": 0, "state_name": "Attempt"}; the interpreter has no
    // $$.State, and a path to a missing value fails the execution before the function is invoked.
    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.error()).isEqualTo("States.Runtime");
    assertThat(result.cause())
        .isEqualTo("Path expression '$$.State.RetryCount' does not point to a value");
    assertThat(lambda.invocations("attempt")).isZero();
  }
}
