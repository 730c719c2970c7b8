package io.icecompact.bench;

import io.icecompact.cli.IcecompactCli;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code ./icecompact bench MODE}: the benchmark harness, one subcommand per mode, each with only
 * the options it reads. Exit codes as the CLI's: 0 done, 1 a run failed or changed what it must
 * keep, 2 bad flags (nothing built).
 */
@Command(
    name = "icecompact bench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = "Benchmarks of the rewrite paths and the whole job; give a mode.",
    subcommands = {
      PathsCommand.class,
      MemoryCommand.class,
      EndToEndCommand.class,
      ScaleCommand.class,
      SkippingCommand.class,
      CommitRaceCommand.class,
      ConvertCommand.class
    })
public final class BenchMain implements Callable<Integer> {
  static final String MODES = "paths, memory, e2e, scale, skipping, commit-race, convert";

  @Spec CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    return new CommandLine(new BenchMain())
        .setParameterExceptionHandler(BenchMain::usageError)
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              cmd.getErr().println("error: " + e.getMessage());
              return IcecompactCli.EXIT_JOB_NOT_DONE;
            });
  }

  /** No mode given. */
  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "Missing a mode: one of " + MODES);
  }

  /** This jar's version, as the CLI's {@code --version} gives its own. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = BenchMain.class.getPackage().getImplementationVersion();
      return new String[] {"icecompact bench " + (version == null ? "dev" : version)};
    }
  }

  /** As the CLI's: exit 2 with one line naming the flag, and where to see the mode's flags. */
  private static int usageError(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("error: " + e.getMessage());
    UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for its flags.");
    err.flush();
    return IcecompactCli.EXIT_BAD_INPUT;
  }
}
