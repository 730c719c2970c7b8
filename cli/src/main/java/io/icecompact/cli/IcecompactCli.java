package io.icecompact.cli;

import io.icecompact.core.error.IcecompactException;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.StoredDocumentUnreadableException;
import io.icecompact.core.job.JobJson;
import java.io.PrintWriter;
import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** The embedded runner: the whole job on one machine, no AWS account needed. */
@Command(
    name = "icecompact",
    mixinStandardHelpOptions = true,
    versionProvider = IcecompactCli.Version.class,
    description =
        "Compacts Apache Iceberg tables: plan file groups, rewrite them, commit one snapshot.",
    subcommands = {
      DemoCommand.class,
      CompactCommand.class,
      ConvertDeletesCommand.class,
      PlanCommand.class,
      HealthCommand.class,
      SweepCommand.class,
      HistoryCommand.class,
      StatusCommand.class,
      RecommitCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the job committed, or had nothing to do; history and status: the history was read, the job found",
      "1:the job failed, was partial, or its outcome is unknown; health: a table could not be read",
      "2:bad input (unknown or malformed flag, value out of range, unknown table or job, a job of another table, a job's stored document that cannot be parsed, malformed filter); nothing was written",
      "75:the job committed nothing and nothing failed: other writers' commits changed its input files or won every commit race until the commit time ran out; run it again"
    })
public final class IcecompactCli {
  public static final int EXIT_JOB_NOT_DONE = 1;
  public static final int EXIT_BAD_INPUT = 2;

  /** sysexits' EX_TEMPFAIL: try again later. */
  public static final int EXIT_TRY_AGAIN = 75;

  public static void main(String[] args) {
    // bench --e2e's fresh runs: this process's CPU time and peak RSS on stderr at exit
    ExitFigures.reportAtExitIfAsked();
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    return new CommandLine(new IcecompactCli())
        .setParameterExceptionHandler(IcecompactCli::usageError)
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              int code = exitCode(e);
              if (cmd.getParseResult() != null && cmd.getParseResult().hasMatchedOption("--json")) {
                String type =
                    e instanceof IcecompactException
                        ? e.getClass().getSimpleName()
                        : e.getClass().getName();
                printJsonError(cmd, type, e.getMessage(), code);
              }
              cmd.getErr().println("error: " + e.getMessage());
              return code;
            });
  }

  /**
   * 2 for bad input: the flags, or a job's stored document that cannot be parsed (the same every
   * run, so a retry cannot help; the message names the file). 1 for the rest: a job not done, or an
   * environment failing.
   */
  static int exitCode(Exception e) {
    return e instanceof InvalidJobInputException || e instanceof StoredDocumentUnreadableException
        ? EXIT_BAD_INPUT
        : EXIT_JOB_NOT_DONE;
  }

  /**
   * A flag picocli rejected (unknown, missing, malformed or out of range), or one a command
   * rejected with a {@link ParameterException}: exit 2 with one line naming the flag, not the whole
   * usage text; with {@code --json}, the JSON error object on stdout as for any other error.
   */
  static int usageError(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    if (asksForJson(cmd, args)) {
      printJsonError(cmd, e.getClass().getName(), e.getMessage(), EXIT_BAD_INPUT);
    }
    PrintWriter err = cmd.getErr();
    err.println("error: " + e.getMessage());
    UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for its flags.");
    err.flush();
    return EXIT_BAD_INPUT;
  }

  /**
   * Whether the rejected command line asked for JSON: the parse stopped at the bad flag, so its
   * result may not hold a later {@code --json}; the arguments do.
   */
  private static boolean asksForJson(CommandLine cmd, String[] args) {
    return cmd.getCommandSpec().findOption("--json") != null
        && Arrays.asList(args).contains("--json");
  }

  private static void printJsonError(CommandLine cmd, String type, String message, int code) {
    cmd.getOut()
        .println(JobJson.toPrettyJson(new ErrorResult(ErrorResult.ERROR, type, message, code)));
    cmd.getOut().flush();
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = IcecompactCli.class.getPackage().getImplementationVersion();
      return new String[] {"icecompact " + (version == null ? "dev" : version)};
    }
  }
}
