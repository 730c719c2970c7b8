package io.icecompact.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.logging.InvocationLogContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class LambdaStepTest {
  record Input(String jobId, String table, Integer groupIndex, String failWith) {}

  record Output(String jobId, int groupIndex, String requestId) {}

  /**
   * A step like the handlers: two required fields, one optional, the job's keys in the log context.
   */
  static final class Probe extends LambdaStep<Input, Output> {
    final AtomicReference<Map<String, String>> mdcDuringRun = new AtomicReference<>();

    Probe() {
      super("Probe", Input.class);
    }

    @Override
    protected Output run(Input input, InvocationLogContext log, Context context) {
      String jobId = require("job_id", input.jobId());
      log.job(jobId, require("table", input.table()));
      mdcDuringRun.set(MDC.getCopyOfContextMap());
      if ("transient".equals(input.failWith())) {
        throw new TransientException(
            "Cannot probe job " + jobId + ": SdkClientException: reset", null);
      }
      if ("untyped".equals(input.failWith())) {
        throw new IllegalStateException("not typed");
      }
      return new Output(
          jobId,
          input.groupIndex() == null ? -1 : input.groupIndex(),
          context == null ? null : context.getAwsRequestId());
    }
  }

  @Test
  void readsTheTypedInputRunsTheStepAndWritesItsOutputAsSnakeCaseJson() throws IOException {
    Probe probe = new Probe();

    String output =
        handle(
            probe,
            "{\"job_id\": \"job-1\", \"table\": \"db.t\", \"group_index\": 7}",
            context("req-9"));

    assertThat(output)
        .isEqualTo("{\"job_id\":\"job-1\",\"group_index\":7,\"request_id\":\"req-9\"}");
    assertThat(probe.mdcDuringRun.get())
        .containsEntry(InvocationLogContext.REQUEST_ID, "req-9")
        .containsEntry(InvocationLogContext.JOB_ID, "job-1")
        .containsEntry(InvocationLogContext.TABLE, "db.t");
    // a warm container's next invocation runs on the same thread: none of this job's keys stay
    assertThat(MDC.get(InvocationLogContext.REQUEST_ID)).isNull();
    assertThat(MDC.get(InvocationLogContext.JOB_ID)).isNull();
    assertThat(MDC.get(InvocationLogContext.TABLE)).isNull();
  }

  @Test
  void aMissingOrBlankRequiredFieldIsInvalidInputNamingTheStateAndTheField() {
    assertThatThrownBy(() -> handle(new Probe(), "{\"table\": \"db.t\"}", null))
        .isExactlyInstanceOf(InvalidJobInputException.class)
        .hasMessage("Probe input has no 'job_id'");
    assertThatThrownBy(
            () -> handle(new Probe(), "{\"job_id\": \"job-1\", \"table\": \"  \"}", null))
        .isExactlyInstanceOf(InvalidJobInputException.class)
        .hasMessage("Probe input has no 'table'");
    assertThatThrownBy(() -> handle(new Probe(), "null", null))
        .isExactlyInstanceOf(InvalidJobInputException.class)
        .hasMessage("Probe input is not a JSON object");
    assertThat(MDC.get(InvocationLogContext.JOB_ID)).isNull();
  }

  @Test
  void theStepsErrorsPassThroughAsThrownForTheStateMachinesRetryAndCatch() {
    // the Retry matches TransientException by class name: not wrapped, not reclassified
    assertThatThrownBy(
            () ->
                handle(
                    new Probe(),
                    "{\"job_id\": \"job-1\", \"table\": \"db.t\", \"fail_with\": \"transient\"}",
                    null))
        .isExactlyInstanceOf(TransientException.class)
        .hasMessage("Cannot probe job job-1: SdkClientException: reset");
    assertThatThrownBy(
            () ->
                handle(
                    new Probe(),
                    "{\"job_id\": \"job-1\", \"table\": \"db.t\", \"fail_with\": \"untyped\"}",
                    null))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("not typed");
  }

  @Test
  void nothingIsWrittenWhenTheStepFails() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThatThrownBy(
            () ->
                new Probe()
                    .handleRequest(
                        stream(
                            "{\"job_id\": \"job-1\", \"table\": \"db.t\", \"fail_with\": \"untyped\"}"),
                        out,
                        null))
        .isInstanceOf(IllegalStateException.class);
    assertThat(out.size()).isZero();
  }

  private static String handle(Probe probe, String input, Context context) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    probe.handleRequest(stream(input), out, context);
    return out.toString(StandardCharsets.UTF_8);
  }

  private static ByteArrayInputStream stream(String json) {
    return new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8));
  }

  /** A Lambda context whose request id is {@code requestId}; nothing else of it is read. */
  private static Context context(String requestId) {
    return (Context)
        Proxy.newProxyInstance(
            Context.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) -> "getAwsRequestId".equals(method.getName()) ? requestId : null);
  }
}
