package io.icecompact.planner.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.text.Abbreviated;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The input of one sweep ({@code sweep.asl.json}), checked against {@code sweep-input.schema.json}
 * (the documented contract, bundled from {@code state-machine/}) so that a malformed input fails in
 * the first state with a message naming the bad field, before any table is read.
 *
 * @param catalogProperties the catalog of every namespace, passed on to each compaction
 * @param namespaces the namespaces whose tables are assessed
 * @param maxTables at most this many tables are compacted per sweep
 * @param maxConcurrentTables compactions running at once
 * @param workLocation passed on to each compaction (null: the compaction's default)
 * @param maxConcurrency passed on to each compaction (null: the compaction's default)
 * @param careSteps the care steps of a table that does not set {@code icecompact.steps} (null:
 *     {@link io.icecompact.core.policy.TablePolicy#DEFAULT_STEPS}, which delete nothing); the
 *     deployment's {@code SweepCareSteps} parameter sets it on the schedule's input
 */
public record SweepInput(
    Map<String, String> catalogProperties,
    List<String> namespaces,
    Integer maxTables,
    Integer maxConcurrentTables,
    String workLocation,
    Integer maxConcurrency,
    List<CareStep> careSteps) {

  public static final int MAX_TABLES_DEFAULT = 10;
  public static final int MAX_CONCURRENT_TABLES_DEFAULT = 4;

  /**
   * The largest {@code catalog_properties}, in bytes of JSON: the plan carries them once and each
   * compaction's input once more, through Step Functions' 256 KiB payloads. The schema bounds each
   * property; JSON Schema cannot bound the object's total size.
   */
  public static final int CATALOG_PROPERTIES_BYTES_MAX = 32 * 1024;

  private static final JsonSchema SCHEMA = loadSchema();

  public SweepInput {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
    // a namespace listed twice is assessed once
    namespaces = namespaces == null ? List.of() : namespaces.stream().distinct().toList();
    maxTables = maxTables == null ? MAX_TABLES_DEFAULT : maxTables;
    maxConcurrentTables =
        maxConcurrentTables == null ? MAX_CONCURRENT_TABLES_DEFAULT : maxConcurrentTables;
    careSteps = careSteps == null ? null : careSteps.stream().distinct().toList();
  }

  /** The same sweep reaching its namespaces through {@code catalogProperties}. */
  public SweepInput withCatalogProperties(Map<String, String> catalogProperties) {
    return new SweepInput(
        catalogProperties,
        namespaces,
        maxTables,
        maxConcurrentTables,
        workLocation,
        maxConcurrency,
        careSteps);
  }

  /**
   * The sweep input checked against its schema; the message names each bad field (the first ten).
   */
  public static SweepInput parse(JsonNode input) {
    if (input == null || !input.isObject()) {
      // cut: the message is the error's Cause in Step Functions, where a payload may not exceed 256
      // KiB
      throw new InvalidJobInputException(
          "Sweep input must be a JSON object, got: "
              + Abbreviated.text(String.valueOf(input), 200));
    }
    Set<ValidationMessage> problems = SCHEMA.validate(input);
    if (!problems.isEmpty()) {
      throw new InvalidJobInputException("Sweep input is invalid: " + problemList(problems));
    }
    int catalogBytes = JobJson.toBytes(input.get("catalog_properties")).length;
    if (catalogBytes > CATALOG_PROPERTIES_BYTES_MAX) {
      throw new InvalidJobInputException(
          String.format(
              "Sweep input is invalid: $.catalog_properties: %d bytes of JSON, at most %d (each compaction's input"
                  + " carries them through Step Functions, whose payloads may not exceed 256 KiB)",
              catalogBytes, CATALOG_PROPERTIES_BYTES_MAX));
    }
    return JobJson.mapper().convertValue(input, SweepInput.class);
  }

  private static String problemList(Set<ValidationMessage> problems) {
    List<String> sorted = problems.stream().map(ValidationMessage::getMessage).sorted().toList();
    String first =
        sorted.stream()
            .limit(10)
            .map(p -> Abbreviated.text(p, 500))
            .collect(Collectors.joining("; "));
    return sorted.size() > 10 ? first + "; ... and " + (sorted.size() - 10) + " more" : first;
  }

  private static JsonSchema loadSchema() {
    try (InputStream in = SweepInput.class.getResourceAsStream("sweep-input.schema.json")) {
      if (in == null) {
        throw new IllegalStateException("sweep-input.schema.json is missing from the jar");
      }
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
