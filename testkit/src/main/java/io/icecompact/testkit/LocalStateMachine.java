package io.icecompact.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * Runs Amazon States Language definitions locally, because Step Functions Local may not be used
 * here and there is no Docker: each {@link #run} is one execution by aws-local-stepfunctions (npm)
 * in a node child process, whose Task states invoke Lambda functions at a {@link LocalLambda}
 * endpoint. {@link #validate} checks a definition with asl-validator (npm), which is what a
 * deployment's linting would run.
 *
 * <p>What the interpreter does differently from Step Functions (checked by this module's tests):
 * the context object has {@code Execution} (Id, Name, Input, StartTime, RoleArn), {@code
 * StateMachine} and, inside a Map's {@code ItemSelector}, {@code Map.Item.Index}/{@code Value}, but
 * no {@code State} ({@code $$.State.RetryCount} fails the execution); inside a Map iteration {@code
 * $$.Execution.Input} is the item. JSONata, {@code Assign} variables, ItemReader/ResultWriter and
 * tolerated failures are not supported; Task resources must be plain Lambda function ARNs, not
 * {@code arn:aws:states:::lambda:invoke}, or {@code arn:aws:states:::states:startExecution.sync:2},
 * which the runner executes itself (see {@link #childDefinition}). {@code "ResultPath": "$"} stores
 * the result under a key {@code "$"} instead of replacing the state's input (omitting ResultPath
 * means the same and works). Numbers are JavaScript doubles: an integer above 2^53, such as an
 * Iceberg snapshot id, comes out rounded. A Map whose {@code ProcessorConfig} has {@code Mode:
 * DISTRIBUTED} runs its iterations inline, like an INLINE Map (no child executions); {@code
 * MaxConcurrencyPath} and Fail states' {@code ErrorPath}/{@code CausePath} work. A Lambda error's
 * {@code Cause} is the function's error document, as in AWS (the runner patches the library, which
 * would give {@code "<errorType>: <errorMessage>"}).
 *
 * <p>The interpreter enforces none of Step Functions' payload limits, so the runner measures them:
 * every state's input and output, each Task's parameters and its function's result, each Map's
 * items and result array, each error, in UTF-8 bytes of the JSON ({@link
 * ExecutionResult#payloads}); whatever exceeds {@link #PAYLOAD_LIMIT_BYTES} is in {@link
 * ExecutionResult#limitViolations}, where AWS would have failed the execution with {@code
 * States.DataLimitExceeded}.
 */
public final class LocalStateMachine implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Step Functions' limit on a state's input or output, a Task's result, and a Distributed Map's
   * items read from its input: 256 KiB of UTF-8 JSON.
   */
  public static final int PAYLOAD_LIMIT_BYTES = 256 * 1024;

  private final URI lambdaEndpoint;
  private Duration timeout = Duration.ofSeconds(60);
  private Duration retryInterval;
  private final Map<String, Path> childDefinitions = new TreeMap<>();
  private final Set<Process> running = ConcurrentHashMap.newKeySet();

  /**
   * The outcome of one execution. {@code status} is {@code SUCCEEDED}, {@code FAILED} or {@code
   * TIMED_OUT} (the definition's own {@code TimeoutSeconds}); {@code output} is the execution's
   * output as JSON text (null unless SUCCEEDED); {@code error} and {@code cause} are set when it
   * did not succeed; {@code states} names the top-level states the execution entered, in order (a
   * state's retries happen within one entry; states inside Map iterations are left out). {@code
   * payloads} holds, per state ({@code "<Map>/<state>"} inside a Map's iterations, {@code
   * "(execution)"} for the execution's own input and output), the largest payload of each kind in
   * bytes: {@code input}, {@code output}, {@code task_parameters}, {@code task_result} (before
   * ResultSelector/ResultPath), {@code items} and {@code map_result} (a Map's, before ResultPath),
   * {@code error_cause}. {@code limitViolations} describes each state and kind over {@link
   * #PAYLOAD_LIMIT_BYTES}.
   */
  public record ExecutionResult(
      String status,
      String output,
      String error,
      String cause,
      List<String> states,
      Map<String, Map<String, Long>> payloads,
      List<String> limitViolations) {
    public ExecutionResult {
      states = states == null ? List.of() : List.copyOf(states);
      Map<String, Map<String, Long>> copy = new TreeMap<>();
      if (payloads != null) {
        payloads.forEach(
            (state, kinds) -> copy.put(state, Collections.unmodifiableMap(new TreeMap<>(kinds))));
      }
      payloads = Collections.unmodifiableMap(copy);
      limitViolations = limitViolations == null ? List.of() : List.copyOf(limitViolations);
    }

    /** Each state's largest payload of any kind, in bytes. */
    public Map<String, Long> largestPayloads() {
      Map<String, Long> largest = new TreeMap<>();
      payloads.forEach(
          (state, kinds) ->
              largest.put(
                  state, kinds.values().stream().mapToLong(Long::longValue).max().orElse(0)));
      return Collections.unmodifiableMap(largest);
    }

    public boolean succeeded() {
      return "SUCCEEDED".equals(status);
    }

    /**
     * The state the execution ended in (a Succeed or Fail state, or an End state), or null if none
     * ran.
     */
    public String lastState() {
      return states.isEmpty() ? null : states.get(states.size() - 1);
    }

    /** The output parsed; fails unless the execution succeeded. */
    public JsonNode outputJson() {
      if (!succeeded()) {
        throw new IllegalStateException("execution " + status + ": " + error + ": " + cause);
      }
      try {
        return JSON.readTree(output);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Thrown by {@link #requireValid} with asl-validator's messages. */
  public static final class InvalidDefinitionException extends RuntimeException {
    private final List<String> errors;

    InvalidDefinitionException(Path definition, List<String> errors) {
      super(definition + " is not a valid state machine: " + String.join("; ", errors));
      this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
      return errors;
    }
  }

  /** Task states will invoke functions at {@code lambda}'s endpoint. */
  public LocalStateMachine(LocalLambda lambda) {
    this(lambda.endpoint());
  }

  /**
   * Task states will invoke functions at {@code lambdaEndpoint} (any Lambda Invoke API endpoint).
   */
  public LocalStateMachine(URI lambdaEndpoint) {
    this.lambdaEndpoint = Objects.requireNonNull(lambdaEndpoint, "lambdaEndpoint");
  }

  /** How long {@link #run} waits for an execution (default 60 s) before killing it and throwing. */
  public LocalStateMachine timeout(Duration timeout) {
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    return this;
  }

  /**
   * Replaces the pause before every retry of every state (IntervalSeconds, BackoffRate,
   * MaxDelaySeconds, JitterStrategy) with {@code interval}; null (the default) keeps the
   * definition's own pauses.
   */
  public LocalStateMachine retryInterval(Duration interval) {
    this.retryInterval = interval;
    return this;
  }

  /**
   * The definition of the state machine {@code stateMachineArn}, which Task states with the
   * resource {@code arn:aws:states:::states:startExecution.sync:2} (or {@code .sync}) start and
   * wait for: the runner executes it in the same process with the task's {@code Input} and gives
   * back startExecution.sync:2's result ({@code Output} as JSON, {@code Status}, {@code
   * ExecutionArn}, {@code Name}); a child that fails fails the task with {@code States.TaskFailed}
   * and the child's {@code Status}, {@code Error} and {@code Cause} as a JSON Cause. Names must be
   * unique per state machine, as in AWS.
   */
  public LocalStateMachine childDefinition(String stateMachineArn, Path definition) {
    childDefinitions.put(
        Objects.requireNonNull(stateMachineArn, "stateMachineArn"), definition.toAbsolutePath());
    return this;
  }

  /**
   * Runs one execution of {@code definition} with {@code inputJson} and returns its outcome. Throws
   * when the execution does not finish within {@link #timeout} or the interpreter refuses the
   * definition.
   */
  public ExecutionResult run(Path definition, String inputJson) {
    Path localAws = LocalAwsDir.resolve();
    List<String> args = new ArrayList<>();
    args.add("--definition");
    args.add(definition.toAbsolutePath().toString());
    args.add("--lambda-endpoint");
    args.add(lambdaEndpoint.toString());
    if (retryInterval != null) {
      args.add("--retry-interval-ms");
      args.add(Long.toString(retryInterval.toMillis()));
    }
    childDefinitions.forEach(
        (arn, file) -> {
          args.add("--child-definition");
          args.add(arn + "=" + file);
        });
    NodeProcesses.Completed completed;
    try {
      completed =
          NodeProcesses.run(
              localAws,
              "run-state-machine.js",
              args,
              inputJson.getBytes(StandardCharsets.UTF_8),
              timeout.toMillis(),
              running);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "execution of " + definition + " did not finish within " + timeout, e);
    }
    String line = lastLine(completed.stdout());
    if (completed.exitCode() != 0 || line == null) {
      throw new IllegalStateException(
          "cannot run "
              + definition
              + " (exit "
              + completed.exitCode()
              + "): "
              + completed.stderr().strip());
    }
    try {
      JsonNode result = JSON.readTree(line);
      JsonNode output = result.get("output");
      String status = result.get("status").asText();
      List<String> states = new ArrayList<>();
      JsonNode entered = result.get("states");
      if (entered != null) {
        entered.forEach(state -> states.add(state.asText()));
      }
      Map<String, Map<String, Long>> payloads = new TreeMap<>();
      JsonNode measured = result.get("payloads");
      if (measured != null) {
        measured
            .fields()
            .forEachRemaining(
                state -> {
                  Map<String, Long> kinds = new TreeMap<>();
                  state
                      .getValue()
                      .fields()
                      .forEachRemaining(kind -> kinds.put(kind.getKey(), kind.getValue().asLong()));
                  payloads.put(state.getKey(), kinds);
                });
      }
      List<String> violations = new ArrayList<>();
      JsonNode over = result.get("violations");
      if (over != null) {
        over.forEach(
            violation ->
                violations.add(
                    String.format(
                        "%s %s: %d bytes > %d (States.DataLimitExceeded in AWS)",
                        violation.get("state").asText(),
                        violation.get("kind").asText(),
                        violation.get("bytes").asLong(),
                        violation.get("limit").asLong())));
      }
      return new ExecutionResult(
          status,
          "SUCCEEDED".equals(status) ? JSON.writeValueAsString(output) : null,
          textOrNull(result.get("error")),
          textOrNull(result.get("cause")),
          states,
          payloads,
          violations);
    } catch (IOException e) {
      throw new IllegalStateException("unexpected runner output: " + completed.stdout(), e);
    }
  }

  /**
   * Runs asl-validator on {@code definition}; returns its error messages, empty when the definition
   * is valid.
   */
  public List<String> validate(Path definition) {
    Path localAws = LocalAwsDir.resolve();
    NodeProcesses.Completed completed;
    try {
      completed =
          NodeProcesses.run(
              localAws,
              "validate-asl.js",
              List.of(definition.toAbsolutePath().toString()),
              new byte[0],
              timeout.toMillis(),
              running);
    } catch (TimeoutException e) {
      throw new IllegalStateException("asl-validator did not finish within " + timeout, e);
    }
    String line = lastLine(completed.stdout());
    if (line == null) {
      throw new IllegalStateException(
          "asl-validator failed (exit "
              + completed.exitCode()
              + "): "
              + completed.stderr().strip());
    }
    try {
      JsonNode result = JSON.readTree(line);
      List<String> errors = new ArrayList<>();
      result.get("errors").forEach(error -> errors.add(error.asText()));
      if (!result.get("valid").asBoolean() && errors.isEmpty()) {
        errors.add("invalid (asl-validator gave no reason)");
      }
      return List.copyOf(errors);
    } catch (IOException e) {
      throw new IllegalStateException("unexpected asl-validator output: " + completed.stdout(), e);
    }
  }

  /** Like {@link #validate}, but throws {@link InvalidDefinitionException} with the messages. */
  public void requireValid(Path definition) {
    List<String> errors = validate(definition);
    if (!errors.isEmpty()) {
      throw new InvalidDefinitionException(definition, errors);
    }
  }

  /** Kills the node processes of executions or validations still running in other threads. */
  @Override
  public void close() {
    running.forEach(
        process -> {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        });
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\n");
    String last = lines[lines.length - 1].strip();
    return last.isEmpty() ? null : last;
  }

  private static String textOrNull(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }
}
