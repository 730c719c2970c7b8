package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.fixtures.JsonHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Step Functions' 256 KiB payload limit, which the interpreter does not enforce, is measured by the
 * runner and enforced by LocalLambda: what AWS would refuse shows up in a test.
 */
class PayloadLimitTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BIG = "x".repeat(140_000);

  private LocalLambda lambda;
  private LocalStateMachine stepFunctions;

  @BeforeEach
  void start() {
    lambda = new LocalLambda();
    stepFunctions =
        new LocalStateMachine(lambda).timeout(Duration.ofSeconds(30)).retryInterval(Duration.ZERO);
  }

  @AfterEach
  void stop() {
    stepFunctions.close();
    lambda.close();
  }

  @Test
  void aStateOutputAndAMapResultOverTheLimitAreReportedWithTheirSizes() throws Exception {
    String input = JSON.writeValueAsString(Map.of("items", List.of(1, 2), "big", BIG));

    ExecutionResult result =
        stepFunctions.run(LocalStateMachineTest.definition("payload-limits.json"), input);

    // The interpreter runs it to the end; AWS would have failed it at "Fan out".
    assertThat(result.succeeded()).isTrue();
    assertThat(result.payloads().get("Fan out"))
        .containsEntry("input", (long) input.length())
        .containsEntry("items", 5L) // [1,2]
        .containsEntry("map_result", 2L * (BIG.length() + 2) + 3); // ["x…","x…"]
    assertThat(result.payloads().get("Fan out/Echo")).containsEntry("output", BIG.length() + 2L);
    assertThat(result.payloads().get("Double"))
        .containsEntry("output", (long) ("{\"a\":\"\",\"b\":\"\"}".length() + 2 * BIG.length()));
    assertThat(result.largestPayloads()).containsEntry("Double", 280_015L);
    assertThat(result.limitViolations())
        .containsExactlyInAnyOrder(
            "(execution) output: 280015 bytes > 262144 (States.DataLimitExceeded in AWS)",
            "Double output: 280015 bytes > 262144 (States.DataLimitExceeded in AWS)",
            "Fan out map_result: 280007 bytes > 262144 (States.DataLimitExceeded in AWS)");
  }

  @Test
  void aMapWhoseItemsExceedTheLimitIsReported() throws Exception {
    String input = JSON.writeValueAsString(Map.of("items", List.of(BIG, BIG), "big", ""));

    ExecutionResult result =
        stepFunctions.run(LocalStateMachineTest.definition("payload-limits.json"), input);

    assertThat(result.payloads().get("Fan out"))
        .containsEntry("items", 2L * (BIG.length() + 2) + 3);
    assertThat(result.limitViolations())
        .contains("Fan out items: 280007 bytes > 262144 (States.DataLimitExceeded in AWS)");
  }

  @Test
  void aFunctionResultOverTheLimitFailsTheExecutionUncaughtAndIsRecorded() {
    String large = "y".repeat(300_000);
    lambda.register("fetch", (JsonHandler) (input, context) -> Map.of("data", large));

    ExecutionResult result =
        stepFunctions.run(LocalStateMachineTest.definition("large-result.json"), "{}");

    // As in AWS: neither the Retry nor the Catch on States.ALL handles it.
    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.error()).isEqualTo(LocalLambda.DATA_LIMIT_EXCEEDED);
    assertThat(result.cause()).contains("300011 bytes > 262144");
    assertThat(result.states()).containsExactly("Fetch");
    assertThat(lambda.invocations("fetch")).isEqualTo(1);
    assertThat(lambda.limitViolations())
        .singleElement()
        .asString()
        .startsWith("fetch: ")
        .contains("function:fetch")
        .contains("300011 bytes > 262144");
    // What the function sent back is the refusal, not the 300 KB.
    assertThat(result.payloads().get("Fetch").get("task_result")).isLessThan(1_000L);

    lambda.resetCounts();
    assertThat(lambda.limitViolations()).isEmpty();
  }
}
