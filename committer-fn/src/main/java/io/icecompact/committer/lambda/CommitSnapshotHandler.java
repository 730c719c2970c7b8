package io.icecompact.committer.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.table.TableSessionPolicy.Stage;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.TableLease;

/**
 * Lambda entry point of {@code CommitSnapshot}: runs the committer, which reads the plan, the group
 * results and the recorded failures from the work location, and checks right before each Iceberg
 * commit that this execution still holds the table's lease (owner and fencing token).
 *
 * <p>Returns the result's {@linkplain JobResult#summary summary}, not the whole result: its
 * per-group outcomes grow with the job (345 KB at 1,000 groups) and Step Functions fails an
 * execution whose state exceeds 256 KiB, after the commit and without releasing the lease. The
 * whole result is in the work location's {@code result.json}, which the summary's {@code
 * result_location} names.
 */
public final class CommitSnapshotHandler
    extends LambdaStep<CommitSnapshotHandler.Input, JobResult> {
  record Input(JobSpec job, PlanSummary plan, LeaseGrant lease) {}

  private final TableLease lease;
  private final DeploymentScope scope;

  public CommitSnapshotHandler() {
    this(LeaseSteps.fromEnvironment().lease(), DeploymentScope.fromEnvironment());
  }

  public CommitSnapshotHandler(TableLease lease) {
    this(lease, DeploymentScope.unrestricted());
  }

  public CommitSnapshotHandler(TableLease lease, DeploymentScope scope) {
    super("CommitSnapshot", Input.class);
    this.lease = lease;
    this.scope = scope;
  }

  @Override
  protected JobResult run(Input input, InvocationLogContext log, Context context) {
    JobSpec job = require("job", input.job());
    log.job(job.jobId(), job.table());
    PlanSummary plan = require("plan", input.plan());
    LeaseGrant held = require("lease", input.lease());
    scope.check(job);
    scope.checkLocation("work location", plan.workLocation());
    WorkLocation.requireJobDirectory(
        plan.workLocation(), null, job.table(), plan.planRef().jobId());
    try (TableAccess unscoped = new TableAccess(scope.catalogProperties(job.catalogProperties()));
        TableAccess access =
            unscoped.scopedFor(
                scope.tableAccessRole(), job.table(), plan.workLocation(), Stage.COMMITTER)) {
      JobCommitter committer =
          new JobCommitter(
              access,
              () -> lease.checkHeld(held.table(), held.owner(), held.token()),
              context == null ? null : context::getRemainingTimeInMillis);
      JobResult result = committer.commit(CommitRequest.of(job, plan));
      return result.summary(new WorkLocation(plan.workLocation()).jobResult());
    }
  }
}
