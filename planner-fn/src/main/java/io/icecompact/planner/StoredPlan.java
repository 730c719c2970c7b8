package io.icecompact.planner;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.JobOfAnotherTableException;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import org.apache.iceberg.Table;

/**
 * The plan of a job planned earlier, read back from its work location, as the planner summarized it
 * then: what a re-run of the job's committer needs ({@code icecompact recommit}, or an execution
 * with {@code recommit: true}) once the execution that planned it is gone. Plans nothing.
 */
public final class StoredPlan {
  private StoredPlan() {}

  /**
   * @throws InvalidJobInputException when the job has no plan where its work location says (an
   *     unknown job id, or another {@code work_location} than the job's), or a plan for another
   *     table ({@link JobOfAnotherTableException})
   * @throws io.icecompact.core.error.TransientException when the environment failed while the table
   *     or the plan was read (as {@link RewritePlanner#plan}, whose message it has)
   */
  public static PlanSummary summary(TableAccess access, JobSpec job, DeploymentScope scope) {
    if (job.jobId() == null || job.jobId().isBlank()) {
      throw new InvalidJobInputException("A re-commit needs the job's id (job_id)");
    }
    try {
      return read(access, job, scope);
    } catch (RuntimeException e) {
      throw RewritePlanner.retryableIfTransient(e, job);
    }
  }

  private static PlanSummary read(TableAccess access, JobSpec job, DeploymentScope scope) {
    Table table = access.loadTable(job.table());
    // the committer writes this table next: the same bounds the planner checks on a first run
    scope.checkTableLocations(table);
    WorkLocation work =
        WorkLocation.of(job.workLocation(), table.location(), job.table(), job.jobId());
    scope.checkLocation("work location", work.jobDirectory());
    JobStore store = new JobStore(access.fileIO());
    String sha256 =
        store
            .storedPlanSha256(work.plan())
            .orElseThrow(
                () ->
                    new InvalidJobInputException(
                        String.format(
                            "Job %s of %s has no plan at %s: nothing to re-commit (a job id from another table, or a job "
                                + "planned with another work_location?)",
                            job.jobId(), job.table(), work.plan())));
    JobPlan plan = store.readPlan(job.jobId(), work.plan(), sha256);
    if (!job.table().equals(plan.table())) {
      // a table registered on another's location shares its work locations: committing this plan
      // would
      // commit to the table it names, not the one asked for
      throw new JobOfAnotherTableException(
          job.jobId(), plan.table(), job.table(), "its plan at " + work.plan());
    }
    return RewritePlanner.summary(plan, work, sha256, 0);
  }
}
