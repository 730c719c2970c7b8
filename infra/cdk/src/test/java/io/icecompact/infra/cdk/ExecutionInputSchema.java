package io.icecompact.infra.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.Set;
import java.util.TreeSet;

/**
 * state-machine/execution-input.schema.json, the check AcquireLease applies to an execution's
 * input, and state-machine/sweep-input.schema.json, AssessTables' check of a sweep's input.
 */
final class ExecutionInputSchema {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonSchema SCHEMA =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(RepositoryFiles.read(RepositoryFiles.executionInputSchema()));
  private static final JsonSchema SWEEP =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(
              RepositoryFiles.read(
                  RepositoryFiles.root().resolve("state-machine/sweep-input.schema.json")));

  private ExecutionInputSchema() {}

  /** The schema's complaints about a JSON input, empty when it is valid. */
  static Set<String> problems(String input) {
    return problems(SCHEMA, input);
  }

  /** The sweep schema's complaints about a JSON sweep input, empty when it is valid. */
  static Set<String> sweepProblems(String input) {
    return problems(SWEEP, input);
  }

  private static Set<String> problems(JsonSchema schema, String input) {
    try {
      JsonNode node = JSON.readTree(input);
      Set<String> out = new TreeSet<>();
      for (ValidationMessage m : schema.validate(node)) {
        out.add(m.getMessage());
      }
      return out;
    } catch (java.io.IOException e) {
      return Set.of("not JSON: " + e.getMessage());
    }
  }
}
