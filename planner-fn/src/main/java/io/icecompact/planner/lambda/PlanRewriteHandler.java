package io.icecompact.planner.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.planner.StoredPlan;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Lambda entry point of the {@code PlanRewrite} state: reads {@code {"job": JobSpec}} from the
 * execution state and returns the small {@code PlanSummary}. With {@code "recommit": true} (the
 * {@code LoadStoredPlan} state) it plans nothing and returns the summary of the job's stored plan
 * ({@link StoredPlan}), for a re-run of the job's committer. Errors are thrown as icecompact's typed
 * exceptions, whose class names the state machine's Retry and Catch match; an S3 or network failure met
 * while reading the table's manifests is a {@code TransientException}, so the step is retried.
 */
public final class PlanRewriteHandler implements RequestStreamHandler {
  /** The part of the execution state this step reads. */
  record Input(JobSpec job, boolean recommit) {}

  private final DeploymentScope scope;

  public PlanRewriteHandler() {
    this(DeploymentScope.fromEnvironment());
  }

  public PlanRewriteHandler(DeploymentScope scope) {
    this.scope = scope;
  }

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    InvocationLogContext.run(
        "PlanRewrite", context == null ? null : context.getAwsRequestId(), log -> plan(in, out, log));
  }

  private void plan(InputStream in, OutputStream out, InvocationLogContext log) throws IOException {
    Input input = JobJson.mapper().readValue(in, Input.class);
    if (input.job() == null) {
      throw new InvalidJobInputException("PlanRewrite input has no 'job'");
    }
    log.job(input.job().jobId(), input.job().table());
    scope.check(input.job());
    PlanSummary summary;
    try (TableAccess access = new TableAccess(input.job().catalogProperties())) {
      summary = input.recommit()
          ? StoredPlan.summary(access, input.job(), scope)
          : new RewritePlanner(access, scope).plan(input.job());
    } catch (RuntimeException e) {
      throw FailureClassifier.retryableIfTransient(
          e, "Cannot plan job " + input.job().jobId() + " of " + input.job().table());
    }
    JobJson.mapper().writeValue(out, summary);
  }
}
