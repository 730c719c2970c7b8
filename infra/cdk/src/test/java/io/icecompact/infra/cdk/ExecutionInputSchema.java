package io.icecompact.infra.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.Set;
import java.util.TreeSet;

/** state-machine/execution-input.schema.json, the check AcquireLease applies to an execution's input. */
final class ExecutionInputSchema {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonSchema SCHEMA = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
      .getSchema(RepositoryFiles.read(RepositoryFiles.executionInputSchema()));

  private ExecutionInputSchema() {}

  /** The schema's complaints about a JSON input, empty when it is valid. */
  static Set<String> problems(String input) {
    try {
      JsonNode node = JSON.readTree(input);
      Set<String> out = new TreeSet<>();
      for (ValidationMessage m : SCHEMA.validate(node)) {
        out.add(m.getMessage());
      }
      return out;
    } catch (java.io.IOException e) {
      return Set.of("not JSON: " + e.getMessage());
    }
  }
}
