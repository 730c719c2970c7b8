package io.icecompact.lease.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.metrics.LeaseMetrics;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of the first state, {@code AcquireLease}: checks the execution input against
 * its schema (a malformed input fails here, naming the field, before anything is written), fixes
 * the job id, checks the job against the deployment's scope (its table, work location and catalog:
 * an input may not choose another catalog than the deployed one, {@code CATALOG_PROPERTIES}) and
 * takes the table's lease for this execution. Its output becomes the execution state.
 *
 * <p>Each acquisition prints one Embedded Metric Format line ({@link LeaseMetrics}): the lease
 * acquired, taken over from an owner that never released it, or held by another execution.
 */
public final class AcquireLeaseHandler
    extends LambdaStep<AcquireLeaseHandler.Input, AcquireLeaseHandler.Output> {
  private static final Logger LOG = LoggerFactory.getLogger(AcquireLeaseHandler.class);

  /**
   * {@code input}: the execution input; {@code execution_id}: {@code $$.Execution.Id}, the owner.
   */
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

  /**
   * {@code scope}: the tables and locations this deployment may touch, checked before the lease is
   * taken.
   */
  public AcquireLeaseHandler(LeaseSteps steps, DeploymentScope scope) {
    super("AcquireLease", Input.class);
    this.steps = steps;
    this.scope = scope;
  }

  /** The execution input is read bounded: unreadable or oversized JSON is refused, naming why. */
  @Override
  protected Input read(InputStream in) {
    return ExecutionInput.read(in, Input.class);
  }

  @Override
  protected Output run(Input request, InvocationLogContext log, Context context) {
    String executionId = require("execution_id", request.executionId());
    ExecutionInput input = ExecutionInput.parse(request.input());
    JobSpec requested = input.jobSpec();
    log.job(requested.jobId(), requested.table());
    scope.check(requested);
    // every later state carries the catalog the steps use: the deployed one, when there is one
    JobSpec job =
        requested.withCatalogProperties(scope.catalogProperties(requested.catalogProperties()));
    LeaseGrant grant =
        steps
            .lease()
            .acquire(
                job.table(), executionId, Duration.ofSeconds(input.leaseTtlSecondsOrDefault()));
    report(job, grant);
    LeaseSettings settings =
        new LeaseSettings(
            input.maxConcurrencyOrDefault(),
            input.leaseTtlSecondsOrDefault(),
            steps.clock().millis(),
            input.careOrNone(),
            input.isRecommit());
    return new Output(job, grant, settings);
  }

  /** One log line and one EMF line (on stdout, where CloudWatch extracts it) per acquisition. */
  private void report(JobSpec job, LeaseGrant grant) {
    LeaseMetrics.Outcome outcome;
    if (!grant.acquired()) {
      outcome = LeaseMetrics.Outcome.HELD_BY_ANOTHER;
      LOG.info(
          "Lease on {} is held by {} until {}: this execution does not compact",
          grant.table(),
          grant.heldBy(),
          Instant.ofEpochMilli(grant.heldUntilMillis()));
    } else if (grant.tookOverFrom() != null) {
      outcome = LeaseMetrics.Outcome.TOOK_OVER_EXPIRED;
      LOG.warn(
          "Took over the lease on {} (token {}): {} let it expire without releasing it",
          grant.table(),
          grant.token(),
          grant.tookOverFrom());
    } else {
      outcome = LeaseMetrics.Outcome.ACQUIRED;
      LOG.info(
          "Acquired the lease on {} (token {}) until {}",
          grant.table(),
          grant.token(),
          Instant.ofEpochMilli(grant.expiresAtMillis()));
    }
    System.out.println(
        JobJson.toJson(
            LeaseMetrics.emf(job.table(), job.jobId(), outcome, steps.clock().millis())));
  }
}
