package io.icecompact.worker.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.core.error.CaughtError;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lambda.LambdaStep;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of the {@code RecordGroupFailure} state, the Map item's Catch: stores why the
 * group's worker gave up next to the results, so the committer reads failures where it reads
 * results and the Map's own output stays empty (far from Step Functions' payload limit). Checks the
 * group against the deployment's scope first, as {@code RewriteGroup} does: it writes where its
 * input says, and so only in a job directory of the group's table, and under the deployment's role
 * only there.
 */
public final class RecordGroupFailureHandler
    extends LambdaStep<RecordGroupFailureHandler.Input, GroupFailure> {
  private static final Logger LOG = LoggerFactory.getLogger(RecordGroupFailureHandler.class);

  record Input(GroupRequest group, CaughtError error) {}

  private final DeploymentScope scope;

  public RecordGroupFailureHandler() {
    this(DeploymentScope.fromEnvironment());
  }

  public RecordGroupFailureHandler(DeploymentScope scope) {
    super("RecordGroupFailure", Input.class);
    this.scope = scope;
  }

  @Override
  protected GroupFailure run(Input input, InvocationLogContext log, Context context) {
    GroupRequest group = require("group", input.group());
    log.job(group.jobId(), group.table()).group(group.groupIndex());
    CaughtError error = require("error", input.error());
    scope.checkTable(group.table());
    scope.checkLocation("work location", group.workLocation());
    WorkLocation.requireJobDirectory(group.workLocation(), null, group.table(), group.jobId());
    Map<String, String> catalog = scope.catalogProperties(group.catalogProperties());
    LOG.warn(
        "Group {} failed after its retries: {}: {}",
        group.groupIndex(),
        error.error(),
        error.message());
    GroupFailure failure = new GroupFailure(group.groupIndex(), error.shortType(), error.message());
    try (TableAccess unscoped = new TableAccess(catalog);
        TableAccess access =
            unscoped.scopedToWorkLocation(scope.tableAccessRole(), group.workLocation())) {
      new JobStore(access.fileIO())
          .writeGroupFailure(new WorkLocation(group.workLocation()), failure);
    }
    return failure;
  }
}
