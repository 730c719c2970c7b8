package io.icecompact.cli;

import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.worker.RewritePathChoice;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code icecompact compact}: one job against any catalog Iceberg can load. */
@Command(
    name = "compact",
    mixinStandardHelpOptions = true,
    description = "Plan, rewrite and commit one compaction job on this machine.")
final class CompactCommand implements Callable<Integer> {
  @Mixin JobOptions job;

  @Option(
      names = "--workers",
      defaultValue = "2",
      paramLabel = "N",
      converter = WholeNumber.Positive.class,
      description = "Groups rewritten in parallel, 1 or more (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--json", description = "Print the result as JSON on stdout")
  boolean json;

  // for `bench --e2e`, which times this command in a fresh JVM with the generic path forced too
  @Option(names = "--rewrite-path", hidden = true, defaultValue = "AUTO")
  RewritePathChoice rewritePath;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    JobResult result =
        new EmbeddedJobRunner(
                workers,
                new StderrProgress(err),
                EmbeddedJobRunner.GroupInterceptor.NONE,
                rewritePath)
            .run(job.toSpec());
    return report(result, json, spec.commandLine().getOut());
  }

  /** Prints the result; the exit code says whether the job did what it was asked. */
  static int report(JobResult result, boolean json, PrintWriter out) {
    if (json) {
      out.println(JobJson.toPrettyJson(result));
    } else {
      ResultPrinter.print(result, out);
    }
    out.flush();
    if (result.status() == JobStatus.CONTENDED && result.verification().verified()) {
      return IcecompactCli.EXIT_TRY_AGAIN;
    }
    return result.status().success() && result.verification().verified()
        ? 0
        : IcecompactCli.EXIT_JOB_NOT_DONE;
  }
}
