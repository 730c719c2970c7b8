package io.icecompact.committer.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.icecompact.committer.JobCommitter;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.TableLease;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * Lambda entry point of {@code CommitSnapshot}: runs the committer, which reads the plan, the group
 * results and the recorded failures from the work location, and checks right before each Iceberg
 * commit that this execution still holds the table's lease (owner and fencing token).
 *
 * <p>Returns the result's {@linkplain JobResult#summary summary}, not the whole result: its per-group
 * outcomes grow with the job (345 KB at 1,000 groups) and Step Functions fails an execution whose state
 * exceeds 256 KiB, after the commit and without releasing the lease. The whole result is in the work
 * location's {@code result.json}, which the summary's {@code result_location} names.
 */
public final class CommitSnapshotHandler implements RequestStreamHandler {
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
    this.lease = lease;
    this.scope = scope;
  }

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    InvocationLogContext.run(
        "CommitSnapshot", context == null ? null : context.getAwsRequestId(), log -> commit(in, out, context, log));
  }

  private void commit(InputStream in, OutputStream out, Context context, InvocationLogContext log)
      throws IOException {
    Input input = JobJson.mapper().readValue(in, Input.class);
    if (input.job() != null) {
      log.job(input.job().jobId(), input.job().table());
    }
    if (input.job() == null || input.plan() == null || input.lease() == null) {
      throw new InvalidJobInputException("CommitSnapshot input needs 'job', 'plan' and 'lease'");
    }
    scope.check(input.job());
    scope.checkLocation("work location", input.plan().workLocation());
    LeaseGrant held = input.lease();
    try (TableAccess access = new TableAccess(input.job().catalogProperties())) {
      JobCommitter committer =
          new JobCommitter(access, () -> lease.checkHeld(held.table(), held.owner(), held.token()),
              context == null ? null : context::getRemainingTimeInMillis);
      JobResult result;
      try {
        result = committer.commit(CommitRequest.of(input.job(), input.plan()));
      } catch (RuntimeException e) {
        // safe to retry: a re-run finds the job's commits by their stamp (S3 failing while Iceberg writes
        // manifests or the metadata file means the commit did not land)
        throw FailureClassifier.retryableIfTransient(e, "Cannot commit job " + input.job().jobId());
      }
      String wholeResult = new WorkLocation(input.plan().workLocation()).jobResult();
      JobJson.mapper().writeValue(out, result.summary(wholeResult));
    }
  }
}
