package io.icecompact.testkit;

import static io.icecompact.testkit.LocalStateMachineTest.definition;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Task that starts another state machine and waits for it ({@code states:startExecution.sync:2}),
 * as a sweep starts one compaction per table: the runner executes the child's definition with the
 * task's input and gives back its output, or fails the task with {@code States.TaskFailed} as Step
 * Functions does.
 */
class ChildExecutionTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CHILD = "arn:aws:states:us-east-1:123456789012:stateMachine:child";

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

  @Test
  void eachChildRunsWithItsInputAndAFailedChildFailsItsTaskWithTheChildsError() throws Exception {
    LocalStateMachine.ExecutionResult result =
        stepFunctions
            .childDefinition(CHILD, definition("child.json"))
            .run(definition("parent.json"), "{\"items\": [\"a\", \"bad\", \"c\"]}");

    assertThat(result.status()).as(result.cause()).isEqualTo("SUCCEEDED");
    JsonNode items = result.outputJson();
    assertThat(items).hasSize(3);
    assertThat(items.get(0).get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(items.get(0).get("output").get("done").asText()).isEqualTo("aa");
    assertThat(items.get(0).get("output").get("execution").asText()).isEqualTo("item-a");
    assertThat(items.get(0).get("name").asText()).isEqualTo("item-a");
    assertThat(items.get(2).get("output").get("done").asText()).isEqualTo("cc");

    assertThat(items.get(1).get("error").asText()).isEqualTo("States.TaskFailed");
    JsonNode cause = JSON.readTree(items.get(1).get("cause").asText());
    assertThat(cause.get("Status").asText()).isEqualTo("FAILED");
    assertThat(cause.get("Error").asText()).isEqualTo("ChildRefused");
    assertThat(cause.get("Cause").asText()).isEqualTo("item 'bad' is refused");
    assertThat(result.limitViolations()).isEmpty();
  }

  /**
   * The parent's Catch on States.TaskFailed takes it: in a Catch that name matches any error but a
   * timeout.
   */
  @Test
  void anExecutionNameUsedTwiceIsRefusedAsInAws() {
    LocalStateMachine.ExecutionResult result =
        stepFunctions
            .childDefinition(CHILD, definition("child.json"))
            .run(definition("parent.json"), "{\"items\": [\"a\", \"a\"]}");

    assertThat(result.status()).isEqualTo("SUCCEEDED");
    JsonNode items = result.outputJson();
    assertThat(items.get(0).get("output").get("done").asText()).isEqualTo("aa");
    assertThat(items.get(1).get("error").asText())
        .isEqualTo("StepFunctions.ExecutionAlreadyExistsException");
    assertThat(items.get(1).get("cause").asText()).contains(CHILD + ":item-a");
  }
}
