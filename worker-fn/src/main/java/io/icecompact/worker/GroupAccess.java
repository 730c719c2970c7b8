package io.icecompact.worker;

import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.table.TableAccessRole;
import io.icecompact.core.table.TableSessionPolicy.Stage;
import java.util.Optional;
import org.apache.iceberg.Table;

/**
 * The access a worker rewrites a group through. Under the deployment's role, S3 writes and deletes
 * go only under the pinned table's data folders and the job's work location ({@link Stage#WORKER}'s
 * session policy): the policy is built from the table the plan pinned, read (never written) with
 * the function's own credentials, so the plan must be the group's table's and the work location one
 * of that table's jobs'.
 */
public final class GroupAccess {
  private GroupAccess() {}

  /**
   * {@code unscoped} itself without a role; else a new access the caller keeps for the job's
   * groups.
   *
   * @throws PlanIntegrityException when the plan is another table's
   * @throws io.icecompact.core.error.OutsideDeploymentScopeException when the work location is not
   *     one of the pinned table's jobs'
   */
  public static TableAccess forGroup(
      TableAccess unscoped, GroupRequest request, Optional<TableAccessRole> role) {
    if (role.isEmpty()) {
      return unscoped;
    }
    JobPlan plan = new JobStore(unscoped.fileIO()).readPlan(request.planRef());
    Table pinned = unscoped.loadPinned(plan.table(), plan.pinned());
    WorkLocation.requireJobDirectory(
        request.workLocation(), pinned.location(), request.table(), request.jobId());
    return unscoped.scopedFor(role, pinned, request.workLocation(), Stage.WORKER);
  }
}
