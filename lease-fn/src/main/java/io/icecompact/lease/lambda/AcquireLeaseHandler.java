package io.icecompact.lease.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.lease.LeaseGrant;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;

/**
 * Lambda entry point of the first state, {@code AcquireLease}: checks the execution input against its
 * schema (a malformed input fails here, naming the field, before anything is written), fixes the job
 * id, and takes the table's lease for this execution. Its output becomes the execution state.
 */
public final class AcquireLeaseHandler implements RequestStreamHandler {
  /** {@code input}: the execution input; {@code execution_id}: {@code $$.Execution.Id}, the owner. */
  record Input(JsonNode input, String executionId) {}

  /** The execution state every later state reads. */
  record Output(JobSpec job, LeaseGrant lease, LeaseSettings settings) {}

  private final LeaseSteps steps;

  public AcquireLeaseHandler() {
    this(LeaseSteps.fromEnvironment());
  }

  public AcquireLeaseHandler(LeaseSteps steps) {
    this.steps = steps;
  }

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    Input request = JobJson.mapper().readValue(in, Input.class);
    if (request.executionId() == null || request.executionId().isBlank()) {
      throw new InvalidJobInputException("AcquireLease needs 'execution_id' ($$.Execution.Id)");
    }
    ExecutionInput input = ExecutionInput.parse(request.input());
    JobSpec job = input.jobSpec();
    LeaseGrant grant =
        steps.lease().acquire(
            job.table(), request.executionId(), Duration.ofSeconds(input.leaseTtlSecondsOrDefault()));
    LeaseSettings settings =
        new LeaseSettings(
            input.maxConcurrencyOrDefault(), input.leaseTtlSecondsOrDefault(), steps.clock().millis());
    JobJson.mapper().writeValue(out, new Output(job, grant, settings));
  }
}
