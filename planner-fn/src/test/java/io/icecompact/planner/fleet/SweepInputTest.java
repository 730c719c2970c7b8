package io.icecompact.planner.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SweepInputTest {
  private static SweepInput parse(String json) {
    return SweepInput.parse(JobJson.tree(json));
  }

  @Test
  void defaultsAreTenTablesFourAtATime() {
    SweepInput input =
        parse(
            "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\", \"ops\", \"lab\"]}");

    assertThat(input.maxTables()).isEqualTo(10);
    assertThat(input.maxConcurrentTables()).isEqualTo(4);
    assertThat(input.namespaces()).containsExactly("lab", "ops");
    assertThat(input.catalogProperties()).isEqualTo(Map.of("type", "glue"));
    assertThat(input.workLocation()).isNull();
    assertThat(input.maxConcurrency()).isNull();
  }

  @Test
  void everySettingIsRead() {
    SweepInput input =
        parse(
            "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\"],"
                + " \"max_tables\": 100, \"max_concurrent_tables\": 40, \"work_location\": \"s3://b/w\", \"max_concurrency\": 7}");

    assertThat(input)
        .isEqualTo(
            new SweepInput(Map.of("type", "glue"), List.of("lab"), 100, 40, "s3://b/w", 7, null));
  }

  @Test
  void eachBadFieldIsNamed() {
    assertInvalid("{\"catalog_properties\": {\"type\": \"glue\"}}", "namespaces");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": []}", "$.namespaces");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": \"lab\"}", "$.namespaces");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\"], \"max_tables\": 101}",
        "$.max_tables");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\"], \"max_tables\": 0}",
        "$.max_tables");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\"], \"max_concurrent_tables\": 41}",
        "$.max_concurrent_tables");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\"], \"max_table\": 3}",
        "max_table");
    assertThatThrownBy(() -> parse("[1]"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining("must be a JSON object");
  }

  /**
   * Issue 28: what the sweep carries through Step Functions is bounded where it enters: each
   * catalog property by the schema, all of them together (which JSON Schema cannot say) by the
   * parser.
   */
  @Test
  void sizesAreBoundedWhereTheyEnter() {
    String longValue =
        "{\"catalog_properties\": {\"type\": \"rest\", \"token\": \""
            + "t".repeat(8193)
            + "\"}, \"namespaces\": [\"lab\"]}";
    assertInvalid(longValue, "$.catalog_properties.token");
    StringBuilder many = new StringBuilder("{\"catalog_properties\": {\"type\": \"rest\"");
    for (int i = 0; i < 40; i++) {
      many.append(", \"header.h").append(i).append("\": \"").append("v".repeat(1000)).append('"');
    }
    many.append("}, \"namespaces\": [\"lab\"]}");
    assertInvalid(many.toString(), "$.catalog_properties: ");
    assertThatThrownBy(() -> parse(many.toString()))
        .hasMessageContaining("at most " + SweepInput.CATALOG_PROPERTIES_BYTES_MAX);
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\""
            + "n".repeat(256)
            + "\"]}",
        "$.namespaces[0]");
    assertInvalid(
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"lab\"], \"work_location\": \""
            + "s".repeat(1025)
            + "\"}",
        "$.work_location");
    // 2.5 KB of catalog settings, the example, is fine
    StringBuilder usual = new StringBuilder("{\"catalog_properties\": {\"type\": \"rest\"");
    for (int i = 0; i < 10; i++) {
      usual.append(", \"header.h").append(i).append("\": \"").append("v".repeat(250)).append('"');
    }
    assertThat(parse(usual.append("}, \"namespaces\": [\"lab\"]}").toString()).catalogProperties())
        .hasSize(11);
  }

  private static void assertInvalid(String json, String field) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Sweep input is invalid: ")
        .hasMessageContaining(field);
  }
}
