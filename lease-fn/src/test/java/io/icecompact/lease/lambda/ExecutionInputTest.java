package io.icecompact.lease.lambda;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import org.junit.jupiter.api.Test;

/**
 * The rejection's message becomes the error's Cause in Step Functions, where a payload may not exceed
 * 256 KiB: it stays short however large or broken the input is.
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
        .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).hasSizeLessThan(300));
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
        .hasMessageEndingWith("; ... and 1990 more")
        .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).hasSizeLessThan(2_000));
  }
}
