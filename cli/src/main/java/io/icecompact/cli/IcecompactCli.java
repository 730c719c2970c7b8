package io.icecompact.cli;

import io.icecompact.core.error.IcecompactException;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The embedded runner: the whole job on one machine, no AWS account needed. */
@Command(
    name = "icecompact",
    mixinStandardHelpOptions = true,
    versionProvider = IcecompactCli.Version.class,
    description = "Compacts Apache Iceberg tables: plan file groups, rewrite them, commit one snapshot.",
    subcommands = {DemoCommand.class, CompactCommand.class, PlanCommand.class, BenchCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the job committed, or had nothing to do",
      "1:the job failed, was partial, or its outcome is unknown",
      "2:bad input (unknown option, table, malformed filter); nothing was written"
    })
public final class IcecompactCli {
  public static final int EXIT_JOB_NOT_DONE = 1;
  public static final int EXIT_BAD_INPUT = 2;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    return new CommandLine(new IcecompactCli())
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              int code = e instanceof InvalidJobInputException ? EXIT_BAD_INPUT : EXIT_JOB_NOT_DONE;
              if (cmd.getParseResult() != null && cmd.getParseResult().hasMatchedOption("--json")) {
                String type = e instanceof IcecompactException ? e.getClass().getSimpleName() : e.getClass().getName();
                cmd.getOut().println(
                    JobJson.toPrettyJson(new ErrorResult(ErrorResult.ERROR, type, e.getMessage(), code)));
                cmd.getOut().flush();
              }
              cmd.getErr().println("error: " + e.getMessage());
              return code;
            });
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = IcecompactCli.class.getPackage().getImplementationVersion();
      return new String[] {"icecompact " + (version == null ? "dev" : version)};
    }
  }
}
