package io.icecompact.care.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.care.TableCare;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.table.TableSessionPolicy.Stage;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.TableLease;
import java.util.List;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of {@code CareForTable}: runs the care steps the execution input lists ({@link
 * TableCare}) after the job committed, while the execution still holds the table's lease, which it
 * checks before each step. Writes every step's whole report to the work location's {@code
 * care.json} and returns a summary of a few hundred bytes: a step's report names up to 20 files per
 * list, and the sweep collects a hundred tables' outputs in one state of at most 256 KiB.
 */
public final class CareForTableHandler
    extends LambdaStep<CareForTableHandler.Input, CareForTableHandler.Output> {
  private static final Logger LOG = LoggerFactory.getLogger(CareForTableHandler.class);

  /**
   * @param job the job, for its table, catalog and work location base
   * @param lease this execution's lease on the table
   * @param workLocation the job's work location (the plan's), where {@code care.json} goes
   * @param steps the steps to run (in {@link TableCare}'s order, whatever order they are listed in)
   */
  record Input(JobSpec job, LeaseGrant lease, String workLocation, List<CareStep> steps) {}

  /** One step as the state's output shows it. */
  record StepSummary(String step, TableCare.Status status, String summary) {}

  /**
   * @param failed steps that failed or did not run
   * @param location the whole reports ({@code care.json})
   */
  record Output(int failed, List<StepSummary> steps, String location) {}

  private final TableLease lease;
  private final DeploymentScope scope;

  public CareForTableHandler() {
    this(LeaseSteps.fromEnvironment().lease(), DeploymentScope.fromEnvironment());
  }

  public CareForTableHandler(TableLease lease) {
    this(lease, DeploymentScope.unrestricted());
  }

  public CareForTableHandler(TableLease lease, DeploymentScope scope) {
    super("CareForTable", Input.class);
    this.lease = lease;
    this.scope = scope;
  }

  @Override
  protected Output run(Input input, InvocationLogContext log, Context context) {
    JobSpec job = require("job", input.job());
    log.job(job.jobId(), job.table());
    LeaseGrant held = require("lease", input.lease());
    String workLocation = require("work_location", input.workLocation());
    List<CareStep> careSteps = require("steps", input.steps());
    scope.check(job);
    scope.checkLocation("work location", workLocation);
    try (TableAccess unscoped = new TableAccess(scope.catalogProperties(job.catalogProperties()));
        TableAccess access = scoped(unscoped, job, workLocation)) {
      TableCare care =
          new TableCare(
              access,
              job.table(),
              job.workLocation(),
              () -> lease.checkHeld(held.table(), held.owner(), held.token()),
              scope);
      List<TableCare.Outcome> outcomes = care.run(careSteps, LOG::info);
      String location = new WorkLocation(workLocation).careResult();
      new JobStore(access.fileIO()).writeDocument(location, outcomes);
      List<StepSummary> steps =
          outcomes.stream().map(o -> new StepSummary(o.step(), o.status(), o.summary())).toList();
      int failed = (int) outcomes.stream().filter(TableCare.Outcome::failed).count();
      return new Output(failed, steps, location);
    }
  }

  private TableAccess scoped(TableAccess unscoped, JobSpec job, String workLocation) {
    Table table = checked(unscoped, job, workLocation);
    return unscoped.scopedFor(scope.tableAccessRole(), table, workFolders(table, job), Stage.CARE);
  }

  /**
   * The table, loaded: care commits to it and deletes under its locations, so the planner's bounds
   * are checked here too.
   */
  private Table checked(TableAccess access, JobSpec job, String workLocation) {
    Table table = access.loadTable(job.table());
    scope.checkTableLocations(table);
    WorkLocation.requireJobDirectory(workLocation, table.location(), job.table(), null);
    return table;
  }

  /**
   * The folder of the table's work locations, every job's: care removes old ones ({@link
   * WorkLocation#root}, where {@code OrphanFilesStep} looks).
   */
  private static String workFolders(Table table, JobSpec job) {
    return WorkLocation.root(job.workLocation(), table.location(), job.table());
  }
}
