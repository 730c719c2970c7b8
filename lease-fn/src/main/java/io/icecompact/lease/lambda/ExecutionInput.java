package io.icecompact.lease.lambda;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
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
 * The execution input of the state machine, checked against {@code execution-input.schema.json}
 * (the documented contract, bundled from {@code state-machine/}) so that a malformed input fails in
 * the first state with a message naming the bad field, before anything is written.
 */
public record ExecutionInput(
    String table,
    Map<String, String> catalogProperties,
    Map<String, String> options,
    JobAction action,
    String where,
    String filter,
    String workLocation,
    String jobId,
    Integer maxConcurrency,
    Integer leaseTtlSeconds,
    List<CareStep> care,
    Boolean recommit) {

  /**
   * Deeper than any valid input (3 levels): a deeper one is refused while parsing, before its
   * schema is checked.
   */
  static final int MAX_NESTING_DEPTH = 16;

  /**
   * Step Functions' limit on an execution input (256 KiB), with room for the state's own fields.
   */
  static final long MAX_DOCUMENT_BYTES = 256 * 1024 + 4096;

  // The limits bound what a caller can make the first function parse: Jackson's defaults (nesting
  // 500,
  // documents unbounded) would let a hostile input cost a stack trace or the function's memory
  // instead of
  // a clear error.
  private static final ObjectMapper BOUNDED =
      JobJson.mapper()
          .copyWith(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_NESTING_DEPTH)
                          .maxDocumentLength(MAX_DOCUMENT_BYTES)
                          .build())
                  .build());

  public static final int MAX_CONCURRENCY_DEFAULT = 40;
  public static final int LEASE_TTL_SECONDS_DEFAULT = 7200;
  private static final JsonSchema SCHEMA = loadSchema();

  /**
   * Reads a state's input that carries an execution input, within the limits above; a document
   * beyond them, or not JSON at all, is an {@link InvalidJobInputException} that says which.
   */
  public static <T> T read(InputStream in, Class<T> type) {
    try {
      return BOUNDED.readValue(in, type);
    } catch (StreamConstraintsException e) {
      throw new InvalidJobInputException(
          "Execution input is refused: nested deeper than "
              + MAX_NESTING_DEPTH
              + " levels or longer than "
              + MAX_DOCUMENT_BYTES
              + " bytes ("
              + Abbreviated.text(e.getOriginalMessage(), 200)
              + ")");
    } catch (JsonProcessingException e) {
      throw new InvalidJobInputException(
          "Execution input is not readable JSON: " + Abbreviated.text(e.getOriginalMessage(), 300));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static ExecutionInput parse(JsonNode input) {
    if (input == null || !input.isObject()) {
      // cut: the message is the error's Cause in Step Functions, where a payload may not exceed 256
      // KiB
      throw new InvalidJobInputException(
          "Execution input must be a JSON object, got: "
              + Abbreviated.text(String.valueOf(input), 200));
    }
    if (input.path("recommit").asBoolean(false) && !input.hasNonNull("job_id")) {
      // the schema says so too (if/then), but its message cannot say why
      throw new InvalidJobInputException(
          "Execution input is invalid: recommit needs job_id, the id of the job whose committer to run again");
    }
    Set<ValidationMessage> problems = SCHEMA.validate(input);
    if (!problems.isEmpty()) {
      throw new InvalidJobInputException("Execution input is invalid: " + problemList(problems));
    }
    return JobJson.mapper().convertValue(input, ExecutionInput.class);
  }

  /**
   * The first 10 problems, sorted, and how many more: an input of 256 KiB may break thousands of
   * rules.
   */
  private static String problemList(Set<ValidationMessage> problems) {
    List<String> sorted = problems.stream().map(ValidationMessage::getMessage).sorted().toList();
    String first =
        sorted.stream()
            .limit(10)
            .map(p -> Abbreviated.text(p, 500))
            .collect(Collectors.joining("; "));
    return sorted.size() > 10 ? first + "; ... and " + (sorted.size() - 10) + " more" : first;
  }

  public JobSpec jobSpec() {
    return new JobSpec(
            jobId, table, catalogProperties, options, filter, where, workLocation, action)
        .withJobIdIfAbsent();
  }

  public int maxConcurrencyOrDefault() {
    return maxConcurrency == null ? MAX_CONCURRENCY_DEFAULT : maxConcurrency;
  }

  /**
   * Whether the execution only re-runs the committer of the job {@code job_id} (planned earlier).
   */
  public boolean isRecommit() {
    return Boolean.TRUE.equals(recommit);
  }

  /** The care steps to run after a commit; none unless the input lists them. */
  public List<CareStep> careOrNone() {
    return care == null ? List.of() : care;
  }

  public int leaseTtlSecondsOrDefault() {
    return leaseTtlSeconds == null ? LEASE_TTL_SECONDS_DEFAULT : leaseTtlSeconds;
  }

  private static JsonSchema loadSchema() {
    try (InputStream in = ExecutionInput.class.getResourceAsStream("execution-input.schema.json")) {
      if (in == null) {
        throw new IllegalStateException("execution-input.schema.json is missing from the jar");
      }
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
