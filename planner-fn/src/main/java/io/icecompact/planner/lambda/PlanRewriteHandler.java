package io.icecompact.planner.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.table.TableSessionPolicy.Stage;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.planner.StoredPlan;
import org.apache.iceberg.Table;

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
    try (TableAccess unscoped = new TableAccess(scope.catalogProperties(job.catalogProperties()))) {
      if (input.recommit()) {
        return StoredPlan.summary(unscoped, job, scope); // reads the stored plan, writes nothing
      }
      JobSpec spec = job.withJobIdIfAbsent(); // the id names the work location the policy bounds
      try (TableAccess access = scoped(unscoped, spec)) {
        return new RewritePlanner(access, scope).plan(spec);
      }
    }
  }

  /**
   * The access the planner writes the job's plan through: under the deployment's role, only in the
   * job's work location. The table is loaded once more for it (one catalog read), only when a role
   * is named.
   */
  private TableAccess scoped(TableAccess unscoped, JobSpec spec) {
    if (scope.tableAccessRole().isEmpty()) {
      return unscoped;
    }
    Table table = unscoped.loadTable(spec.table());
    scope.checkTableLocations(table);
    String work =
        WorkLocation.of(spec.workLocation(), table.location(), spec.table(), spec.jobId())
            .jobDirectory();
    scope.checkLocation("work location", work);
    return unscoped.scopedFor(scope.tableAccessRole(), table, work, Stage.PLANNER);
  }
}
