package io.icecompact.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.logging.InvocationLogContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * The skeleton every icecompact Lambda handler shares: reads the state's input as a typed record
 * ({@link JobJson}'s snake_case), runs {@link #run} inside the invocation's log context ({@link
 * InvocationLogContext}: Lambda's request id, then the job's keys the step adds, all removed
 * afterwards) and writes what it returns as the state's JSON output. A handler is its input record,
 * its output, its constructors and {@link #run}: the checks of its fields ({@link #require}), its
 * scope checks and the stage it calls.
 *
 * <p>Errors pass through as they are thrown: the state machine's Retry and Catch match icecompact's
 * typed exceptions by class name, so the base neither wraps nor classifies. Whether a library's
 * failure is transient is the stage's decision (e.g. {@code RewritePlanner.plan}, {@code
 * JobCommitter.commit}), so the embedded runner, which calls the same stages, gets the same typed
 * errors.
 *
 * <p>Constructors: a handler's no-argument constructor is the one Lambda calls, once per container;
 * it builds the real clients then (from the function's environment), so that warm invocations reuse
 * them. Tests use the constructors that take those clients.
 *
 * <p>Why its own module: it implements Lambda's {@link RequestStreamHandler} ({@code
 * aws-lambda-java-core}). {@code core} is the model the CLI shares and compiles without Lambda's
 * interfaces; {@code lambda-logging} is an optional dependency of the function modules (log4j2 must
 * stay off the classpath of {@code cli} and {@code state-machine}), so a class there would be
 * missing where {@code state-machine}'s tests run the handlers. The function modules depend on this
 * one; what depends on them already had {@code aws-lambda-java-core} (10 KB of interfaces) through
 * them.
 *
 * @param <I> the state's input, a record Jackson reads (absent fields are null)
 * @param <O> the state's output, written with {@link JobJson#mapper()}
 */
public abstract class LambdaStep<I, O> implements RequestStreamHandler {
  private final String state;
  private final Class<I> inputType;

  /**
   * @param state the state's name in the state machine (e.g. {@code PlanRewrite}): the failure's
   *     log line and the messages of {@link #require} name it
   * @param inputType the record the input is read as
   */
  protected LambdaStep(String state, Class<I> inputType) {
    this.state = Objects.requireNonNull(state, "state");
    this.inputType = Objects.requireNonNull(inputType, "inputType");
  }

  @Override
  public final void handleRequest(InputStream in, OutputStream out, Context context)
      throws IOException {
    InvocationLogContext.run(
        state,
        context == null ? null : context.getAwsRequestId(),
        log -> {
          I input = read(in);
          if (input == null) {
            throw new InvalidJobInputException(state + " input is not a JSON object");
          }
          O output = run(input, log, context);
          JobJson.mapper().writeValue(out, output);
        });
  }

  /**
   * Runs the step on its input and returns its output. Add the job's keys to {@code log} as soon as
   * they are known, so that a failure's log line carries them.
   *
   * @param context Lambda's context, or null (tests, local runs)
   */
  protected abstract O run(I input, InvocationLogContext log, Context context) throws IOException;

  /**
   * Reads the input; a step whose input needs another reader (a bounded one, say) overrides this.
   */
  protected I read(InputStream in) throws IOException {
    return JobJson.mapper().readValue(in, inputType);
  }

  /**
   * {@code value}, or an {@link InvalidJobInputException} "{@code <state> input has no '<field>'}"
   * when it is null or a blank string.
   *
   * @param field the field's name as the input spells it (snake_case)
   */
  protected final <T> T require(String field, T value) {
    if (value == null || value instanceof CharSequence text && text.toString().isBlank()) {
      throw new InvalidJobInputException(state + " input has no '" + field + "'");
    }
    return value;
  }
}
