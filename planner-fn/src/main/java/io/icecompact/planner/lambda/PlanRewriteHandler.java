package io.icecompact.planner.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.planner.StoredPlan;

/**
 * Lambda entry point of the {@code PlanRewrite} state: reads {@code {"job": JobSpec}} from the
 * execution state and returns the small {@code PlanSummary}. With {@code "recommit": true} (the
 * {@code LoadStoredPlan} state) it plans nothing and returns the summary of the job's stored plan
 * ({@link StoredPlan}), for a re-run of the job's committer. Errors are the planner's typed
 * exceptions, whose class names the state machine's Retry and Catch match; an S3 or network failure
 * met while reading the table's manifests is a {@code TransientException} ({@link
 * RewritePlanner#plan}), so the step is retried.
 */
public final class PlanRewriteHandler extends LambdaStep<PlanRewriteHandler.Input, PlanSummary> {
  /** The part of the execution state this step reads. */
  record Input(JobSpec job, boolean recommit) {}

  private final DeploymentScope scope;

  public PlanRewriteHandler() {
    this(DeploymentScope.fromEnvironment());
  }

  public PlanRewriteHandler(DeploymentScope scope) {
    super("PlanRewrite", Input.class);
    this.scope = scope;
  }

  @Override
  protected PlanSummary run(Input input, InvocationLogContext log, Context context) {
    JobSpec job = require("job", input.job());
    log.job(job.jobId(), job.table());
    scope.check(job);
    try (TableAccess access = new TableAccess(scope.catalogProperties(job.catalogProperties()))) {
      return input.recommit()
          ? StoredPlan.summary(access, job, scope)
          : new RewritePlanner(access, scope).plan(job);
    }
  }
}
