package io.icecompact.lease.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.metrics.LeaseMetrics;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of the first state, {@code AcquireLease}: checks the execution input against its
 * schema (a malformed input fails here, naming the field, before anything is written), fixes the job
 * id, and takes the table's lease for this execution. Its output becomes the execution state.
 *
 * <p>Each acquisition prints one Embedded Metric Format line ({@link LeaseMetrics}): the lease acquired,
 * taken over from an owner that never released it, or held by another execution.
 */
public final class AcquireLeaseHandler implements RequestStreamHandler {
  private static final Logger LOG = LoggerFactory.getLogger(AcquireLeaseHandler.class);

  /** {@code input}: the execution input; {@code execution_id}: {@code $$.Execution.Id}, the owner. */
  record Input(JsonNode input, String executionId) {}

  /** The execution state every later state reads. */
  record Output(JobSpec job, LeaseGrant lease, LeaseSettings settings) {}

  private final LeaseSteps steps;
  private final DeploymentScope scope;

  public AcquireLeaseHandler() {
    this(LeaseSteps.fromEnvironment(), DeploymentScope.fromEnvironment());
  }

  public AcquireLeaseHandler(LeaseSteps steps) {
    this(steps, DeploymentScope.unrestricted());
  }

  /** {@code scope}: the tables and locations this deployment may touch, checked before the lease is taken. */
  public AcquireLeaseHandler(LeaseSteps steps, DeploymentScope scope) {
    this.steps = steps;
    this.scope = scope;
  }

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    InvocationLogContext.run(
        "AcquireLease", context == null ? null : context.getAwsRequestId(), log -> acquire(in, out, log));
  }

  private void acquire(InputStream in, OutputStream out, InvocationLogContext log) throws IOException {
    Input request = ExecutionInput.read(in, Input.class);
    if (request.executionId() == null || request.executionId().isBlank()) {
      throw new InvalidJobInputException("AcquireLease needs 'execution_id' ($$.Execution.Id)");
    }
    ExecutionInput input = ExecutionInput.parse(request.input());
    JobSpec job = input.jobSpec();
    log.job(job.jobId(), job.table());
    scope.check(job);
    LeaseGrant grant =
        steps.lease().acquire(
            job.table(), request.executionId(), Duration.ofSeconds(input.leaseTtlSecondsOrDefault()));
    report(job, grant);
    LeaseSettings settings =
        new LeaseSettings(
            input.maxConcurrencyOrDefault(), input.leaseTtlSecondsOrDefault(), steps.clock().millis(),
            input.careOrNone(), input.isRecommit());
    JobJson.mapper().writeValue(out, new Output(job, grant, settings));
  }

  /** One log line and one EMF line (on stdout, where CloudWatch extracts it) per acquisition. */
  private void report(JobSpec job, LeaseGrant grant) {
    LeaseMetrics.Outcome outcome;
    if (!grant.acquired()) {
      outcome = LeaseMetrics.Outcome.HELD_BY_ANOTHER;
      LOG.info("Lease on {} is held by {} until {}: this execution does not compact", grant.table(),
          grant.heldBy(), Instant.ofEpochMilli(grant.heldUntilMillis()));
    } else if (grant.tookOverFrom() != null) {
      outcome = LeaseMetrics.Outcome.TOOK_OVER_EXPIRED;
      LOG.warn("Took over the lease on {} (token {}): {} let it expire without releasing it", grant.table(),
          grant.token(), grant.tookOverFrom());
    } else {
      outcome = LeaseMetrics.Outcome.ACQUIRED;
      LOG.info("Acquired the lease on {} (token {}) until {}", grant.table(), grant.token(),
          Instant.ofEpochMilli(grant.expiresAtMillis()));
    }
    System.out.println(JobJson.toJson(LeaseMetrics.emf(job.table(), job.jobId(), outcome, steps.clock().millis())));
  }
}
