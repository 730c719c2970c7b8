package io.icecompact.cli;

import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobResult;
import io.icecompact.engine.EmbeddedJobRunner;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact convert-deletes}: one {@code convert-equality-deletes} job on this machine, the
 * same stages as {@code compact} with the other action.
 */
@Command(
    name = "convert-deletes",
    mixinStandardHelpOptions = true,
    description = {
      "Replace the table's equality deletes by position deletes (v2) or deletion vectors (v3),"
          + " reading only the key columns of its data files and rewriting none of them.",
      "An equality delete file is removed only when every data file it applies to was converted;"
          + " options: max-file-group-size-bytes, max-file-group-input-files, max-groups-per-job,"
          + " allow-partial."
    })
final class ConvertDeletesCommand implements Callable<Integer> {
  @Mixin JobOptions job;

  @Option(
      names = "--workers",
      defaultValue = "2",
      paramLabel = "N",
      converter = WholeNumber.Positive.class,
      description = "Groups converted in parallel, 1 or more (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--json", description = "Print the result as JSON on stdout")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    JobResult result =
        new EmbeddedJobRunner(workers, new StderrProgress(err))
            .run(job.toSpec().withAction(JobAction.CONVERT_EQUALITY_DELETES));
    return CompactCommand.report(result, json, spec.commandLine().getOut());
  }
}
