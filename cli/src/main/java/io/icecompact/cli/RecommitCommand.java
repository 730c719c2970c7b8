package io.icecompact.cli;

import io.icecompact.cli.catalog.BoundedGlueClientFactory;
import io.icecompact.cli.flags.JobId;
import io.icecompact.cli.flags.KeyValue;
import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.StoredPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact recommit}: runs only the committer of a job planned and rewritten earlier, from
 * what its work location holds: after an {@code UNKNOWN} commit, or a run stopped between its
 * workers and its commit. Plans and rewrites nothing. The committer finds the job's own earlier
 * commits by their stamp ({@code icecompact.job-id}), so it commits only what is left and never a
 * group twice; a job that committed returns its stored result. Exit codes as {@code compact}'s; 2
 * when the job has no plan there.
 */
@Command(
    name = "recommit",
    mixinStandardHelpOptions = true,
    description =
        "Re-run only the committer of an earlier job (after an UNKNOWN commit or a run stopped before its commit).")
final class RecommitCommand implements Callable<Integer> {
  @Option(
      names = "--table",
      required = true,
      paramLabel = "NS.TABLE",
      description = "Table identifier, e.g. analytics.orders")
  String table;

  @Option(
      names = {"-c", "--catalog-property"},
      paramLabel = "KEY=VALUE",
      converter = KeyValue.Converter.class,
      description =
          "Iceberg catalog property (type or catalog-impl, uri, warehouse, io-impl, ...); repeatable")
  List<KeyValue> catalogProperties = new ArrayList<>();

  @Option(
      names = "--job-id",
      required = true,
      paramLabel = "ID",
      converter = JobId.class,
      description = "The job whose committer to run again, as history lists it")
  String jobId;

  @Option(
      names = "--work-location",
      paramLabel = "URI",
      description =
          "The job's work location base, if it had one (default: <table location>/_icecompact)")
  String workLocation;

  @Option(names = "--json", description = "Print the result as JSON on stdout")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    JobSpec job = new JobSpec(jobId, table, catalog(), Map.of(), null, null, workLocation);
    JobResult result;
    try (TableAccess access = new TableAccess(job.catalogProperties())) {
      PlanSummary plan = StoredPlan.summary(access, job, DeploymentScope.unrestricted());
      spec.commandLine()
          .getErr()
          .printf(
              "re-running the committer of %s (%d groups, planned on snapshot %d)%n",
              jobId, plan.groupCount(), plan.pinned().snapshotId());
      result = new JobCommitter(access).commit(CommitRequest.of(job, plan));
    }
    return CompactCommand.report(result, json, spec.commandLine().getOut());
  }

  private Map<String, String> catalog() {
    try {
      return BoundedGlueClientFactory.withBoundedGlue(KeyValue.toMap(catalogProperties));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--catalog-property': " + e.getMessage());
    }
  }
}
