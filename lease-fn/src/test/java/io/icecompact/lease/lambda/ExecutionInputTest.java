package io.icecompact.lease.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.policy.CareStep;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rejection's message becomes the error's Cause in Step Functions, where a payload may not
 * exceed 256 KiB: it stays short however large or broken the input is.
 */
class ExecutionInputTest {
  @Test
  void aLargeNonObjectInputIsQuotedOnlyInPart() {
    ArrayNode numbers = JobJson.mapper().createArrayNode();
    for (int i = 0; i < 50_000; i++) {
      numbers.add(i);
    }

    assertThatThrownBy(() -> ExecutionInput.parse(numbers))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Execution input must be a JSON object, got: [0,1,2,")
        .hasMessageContaining("more characters)")
        .satisfies(
            e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).hasSizeLessThan(300));
  }

  @Test
  void thousandsOfBrokenRulesAreListedTenAndCounted() {
    ObjectNode input = JobJson.mapper().createObjectNode();
    input.put("table", "db.t");
    input.putObject("catalog_properties").put("type", "jdbc");
    ObjectNode options = input.putObject("options");
    for (int i = 0; i < 2_000; i++) {
      options.put("option-" + i, i);
    }

    assertThatThrownBy(() -> ExecutionInput.parse(input))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Execution input is invalid: ")
        .hasMessageContaining("integer found, string expected")
        .hasMessageEndingWith("; ... and 1991 more")
        .satisfies(
            e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).hasSizeLessThan(2_000));
  }

  @Test
  void aDeeplyNestedInputIsRefusedWhileParsingWithAClearError() {
    String nested = "[".repeat(10_000) + "]".repeat(10_000);
    String request =
        "{\"execution_id\": \"e\", \"input\": {\"table\": \"db.t\", \"options\": " + nested + "}}";

    assertThatThrownBy(() -> ExecutionInput.read(stream(request), JsonNode.class))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "Execution input is refused: nested deeper than 16 levels or longer than 266240 bytes")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(500));
  }

  @Test
  void anInputLongerThanStepFunctionsAllowsIsRefusedWhileParsing() {
    String request =
        "{\"execution_id\": \"e\", \"input\": {\"table\": \"db.t\", \"where\": \""
            + "x".repeat(300 * 1024)
            + "\"}}";

    assertThatThrownBy(() -> ExecutionInput.read(stream(request), JsonNode.class))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "Execution input is refused: nested deeper than 16 levels or longer than 266240 bytes");
  }

  @Test
  void inputThatIsNotJsonIsAnInvalidInput() {
    assertThatThrownBy(
            () -> ExecutionInput.read(stream("{\"input\": {\"table\": "), JsonNode.class))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Execution input is not readable JSON: ");
  }

  @Test
  void aTableWithASlashOrTooManyOptionsIsRejectedNamingTheField() {
    ObjectNode slash = minimal();
    slash.put("table", "db.orders/../../other");
    ObjectNode many = minimal();
    ObjectNode options = many.putObject("options");
    for (int i = 0; i < 101; i++) {
      options.put("option-" + i, "1");
    }

    assertThatThrownBy(() -> ExecutionInput.parse(slash))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining("$.table: does not match the regex pattern");
    assertThatThrownBy(() -> ExecutionInput.parse(many))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining("$.options: must have at most 100 properties");
  }

  private static InputStream stream(String text) {
    return new java.io.ByteArrayInputStream(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void careStepsAreParsedByTheirPolicyNames() {
    ObjectNode input = minimal();
    input.putArray("care").add("remove-orphans").add("delete-cleanup");

    assertThat(ExecutionInput.parse(input).careOrNone())
        .containsExactly(CareStep.REMOVE_ORPHANS, CareStep.DELETE_CLEANUP);
    assertThat(ExecutionInput.parse(minimal()).careOrNone()).isEmpty();
  }

  @Test
  void anUnknownOrRepeatedCareStepIsRejectedNamingTheField() {
    ObjectNode unknown = minimal();
    unknown.putArray("care").add("vacuum");
    ObjectNode twice = minimal();
    twice.putArray("care").add("expire-snapshots").add("expire-snapshots");

    assertThatThrownBy(() -> ExecutionInput.parse(unknown))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining("$.care[0]");
    assertThatThrownBy(() -> ExecutionInput.parse(twice))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining("$.care");
  }

  /**
   * The schema (the documented contract) lists exactly the steps the code knows, by the same names.
   */
  @Test
  void theSchemasCareStepsAreTheCareStepEnum() throws Exception {
    JsonNode schema;
    try (InputStream in = ExecutionInput.class.getResourceAsStream("execution-input.schema.json")) {
      schema = JobJson.mapper().readTree(in);
    }
    List<String> names = new ArrayList<>();
    schema
        .get("properties")
        .get("care")
        .get("items")
        .get("enum")
        .forEach(name -> names.add(name.asText()));

    assertThat(names)
        .containsExactlyInAnyOrder(
            Arrays.stream(CareStep.values()).map(CareStep::propertyName).toArray(String[]::new));
  }

  @Test
  void theActionIsCarriedIntoTheJobSpecAndAnUnknownOneIsRejectedNamingTheField() {
    ObjectNode convert = minimal();
    convert.put("action", "convert-equality-deletes");
    ObjectNode unknown = minimal();
    unknown.put("action", "convert-deletes");

    assertThat(ExecutionInput.parse(convert).jobSpec().jobAction())
        .isEqualTo(JobAction.CONVERT_EQUALITY_DELETES);
    assertThat(ExecutionInput.parse(minimal()).jobSpec().jobAction())
        .isEqualTo(JobAction.REWRITE_DATA_FILES);
    assertThatThrownBy(() -> ExecutionInput.parse(unknown))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Execution input is invalid: $.action: does not have a value in the enumeration"
                + " [\"rewrite-data-files\", \"convert-equality-deletes\"]");
  }

  /** The schema lists exactly the actions the code knows, by the same names. */
  @Test
  void theSchemasActionsAreTheJobActionEnum() throws Exception {
    JsonNode schema;
    try (InputStream in = ExecutionInput.class.getResourceAsStream("execution-input.schema.json")) {
      schema = JobJson.mapper().readTree(in);
    }
    List<String> names = new ArrayList<>();
    schema.get("properties").get("action").get("enum").forEach(name -> names.add(name.asText()));

    assertThat(names)
        .containsExactlyInAnyOrder(
            Arrays.stream(JobAction.values()).map(JobAction::value).toArray(String[]::new));
  }

  private static ObjectNode minimal() {
    ObjectNode input = JobJson.mapper().createObjectNode();
    input.put("table", "db.t");
    input.putObject("catalog_properties").put("type", "jdbc");
    return input;
  }
}
