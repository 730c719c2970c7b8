package io.icecompact.lease.lambda;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.icecompact.core.error.InvalidJobInputException;
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
 * The execution input of the state machine, checked against {@code execution-input.schema.json} (the
 * documented contract, bundled from {@code state-machine/}) so that a malformed input fails in the
 * first state with a message naming the bad field, before anything is written.
 */
public record ExecutionInput(
    String table,
    Map<String, String> catalogProperties,
    Map<String, String> options,
    String where,
    String filter,
    String workLocation,
    String jobId,
    Integer maxConcurrency,
    Integer leaseTtlSeconds,
    List<CareStep> care,
    Boolean recommit) {

  public static final int MAX_CONCURRENCY_DEFAULT = 40;
  public static final int LEASE_TTL_SECONDS_DEFAULT = 7200;
  private static final JsonSchema SCHEMA = loadSchema();

  public static ExecutionInput parse(JsonNode input) {
    if (input == null || !input.isObject()) {
      // cut: the message is the error's Cause in Step Functions, where a payload may not exceed 256 KiB
      throw new InvalidJobInputException(
          "Execution input must be a JSON object, got: " + Abbreviated.text(String.valueOf(input), 200));
    }
    if (input.path("recommit").asBoolean(false) && !input.hasNonNull("job_id")) {
      // the schema says so too (if/then), but its message cannot say why
      throw new InvalidJobInputException(
          "Execution input is invalid: recommit needs job_id, the id of the job whose committer to run again");
    }
    Set<ValidationMessage> problems = SCHEMA.validate(input);
    if (!problems.isEmpty()) {
      throw new InvalidJobInputException(
          "Execution input is invalid: " + problemList(problems));
    }
    return JobJson.mapper().convertValue(input, ExecutionInput.class);
  }

  /** The first 10 problems, sorted, and how many more: an input of 256 KiB may break thousands of rules. */
  private static String problemList(Set<ValidationMessage> problems) {
    List<String> sorted = problems.stream().map(ValidationMessage::getMessage).sorted().toList();
    String first = sorted.stream().limit(10).map(p -> Abbreviated.text(p, 500)).collect(Collectors.joining("; "));
    return sorted.size() > 10 ? first + "; ... and " + (sorted.size() - 10) + " more" : first;
  }

  public JobSpec jobSpec() {
    return new JobSpec(jobId, table, catalogProperties, options, filter, where, workLocation)
        .withJobIdIfAbsent();
  }

  public int maxConcurrencyOrDefault() {
    return maxConcurrency == null ? MAX_CONCURRENCY_DEFAULT : maxConcurrency;
  }

  /** Whether the execution only re-runs the committer of the job {@code job_id} (planned earlier). */
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
