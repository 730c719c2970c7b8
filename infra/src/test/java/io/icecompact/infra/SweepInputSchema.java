package io.icecompact.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.Set;
import java.util.TreeSet;

/** state-machine/sweep-input.schema.json, the check AssessTables applies to a sweep's input. */
final class SweepInputSchema {
  private SweepInputSchema() {}

  /** The schema's complaints about a sweep input, empty when it is valid. */
  static Set<String> problems(JsonNode schema, JsonNode input) {
    Set<String> out = new TreeSet<>();
    for (ValidationMessage m :
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
            .getSchema(schema)
            .validate(input)) {
      out.add(m.getMessage());
    }
    return out;
  }
}
