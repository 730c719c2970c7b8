package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenario 7: a malformed execution input fails in the first state, naming the field; nothing is
 * written. And a bad option, which only the planner can tell, fails the job after the lease was
 * taken: the failure path releases the lease and logs the job.
 */
class StateMachineInvalidInputTest extends StateMachineTestBase {

  static Stream<Arguments> malformedInputs() {
    return Stream.of(
        Arguments.of(
            "options given as a number",
            (UnaryOperator<Map<String, Object>>) input -> with(input, "options", 5),
            "$.options: integer found, object expected"),
        Arguments.of(
            "an unknown top-level field",
            (UnaryOperator<Map<String, Object>>)
                input -> with(input, "optionz", Map.of("min-input-files", "2")),
            "$: property 'optionz' is not defined in the schema and the schema does not allow additional properties"),
        Arguments.of(
            "an unknown action",
            (UnaryOperator<Map<String, Object>>) input -> with(input, "action", "convert-deletes"),
            "$.action: does not have a value in the enumeration"
                + " [\"rewrite-data-files\", \"convert-equality-deletes\"]"),
        Arguments.of(
            "no table",
            (UnaryOperator<Map<String, Object>>) input -> without(input, "table"),
            "$: required property 'table' not found"));
  }

  private static Map<String, Object> with(Map<String, Object> input, String field, Object value) {
    input.put(field, value);
    return input;
  }

  private static Map<String, Object> without(Map<String, Object> input, String field) {
    input.remove(field);
    return input;
  }

  @Test
  void aBadOptionFailsThePlannerAfterTheLeaseWasTakenAndTheLeaseIsReleased() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    Map<String, Object> input = input(catalog);
    input.put("options", Map.of("min-input-filez", "2"));

    ExecutionResult result = run(input);

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states())
        .containsExactly(
            "AcquireLease",
            "LeaseAcquired?",
            "PlanRewrite",
            "ReleaseLeaseAfterFailure",
            "JobFailed");
    assertThat(result.error()).isEqualTo(InvalidJobInputException.class.getName());
    JsonNode cause = tree(result.cause());
    assertThat(cause.get("errorType").asText()).isEqualTo(InvalidJobInputException.class.getName());
    assertThat(cause.get("errorMessage").asText())
        .startsWith("Unknown rewrite option 'min-input-filez'");

    assertInvocations(1, 1, 0, 0, 0, 1);
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    List<JobLogEntry> log = jobLog();
    assertThat(log).hasSize(1);
    assertThat(log.get(0).status()).isEqualTo("FAILED");
    assertThat(log.get(0).error())
        .startsWith(InvalidJobInputException.class.getName() + ": ")
        .contains("Unknown rewrite option 'min-input-filez'");
    assertThat(leaseItem()).containsKey("released_at");
    LeaseGrant next = leaseSteps.lease().acquire(TABLE, "another-execution", Duration.ofMinutes(5));
    assertThat(next.acquired()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedInputs")
  void failsInTheFirstStateNamingTheFieldAndWritesNothing(
      String what, UnaryOperator<Map<String, Object>> malform, String message) {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();

    ExecutionResult result = run(malform.apply(input(catalog)));

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states()).containsExactly("AcquireLease", "InvalidInput");
    assertThat(result.output()).isNull();
    assertThat(result.error()).isEqualTo(InvalidJobInputException.class.getName());
    JsonNode cause = tree(result.cause());
    assertThat(cause.get("errorType").asText()).isEqualTo(InvalidJobInputException.class.getName());
    assertThat(cause.get("errorMessage").asText())
        .isEqualTo("Execution input is invalid: " + message);

    // nothing written: no lease, no job log record, no snapshot; nothing after the first state ran
    assertThat(leaseTableItemCount()).isZero();
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertInvocations(1, 0, 0, 0, 0, 0);
  }
}
