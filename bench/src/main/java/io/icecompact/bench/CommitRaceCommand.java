package io.icecompact.bench;

import io.icecompact.cli.IcecompactCli;
import io.icecompact.cli.flags.WholeNumber;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code bench commit-race}: a compaction racing a streaming writer's commits. */
@Command(
    name = "commit-race",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "Commit-race mode: a Flink-written CDC table (--race-table) compacted while a streaming writer"
            + " commits every --writer-every-ms on each of --catalogs, --rounds times each; per run the job's commit"
            + " attempts, what a lost one cost, the writer's commits meanwhile, and the live rows checked against the"
            + " writer's model.")
final class CommitRaceCommand implements Callable<Integer> {
  @Option(
      names = "--race-table",
      defaultValue = "upsert",
      paramLabel = "SIZE",
      description =
          "The CDC table, upsert (552 data files, 37 MB) or upsert-s (seconds to build)"
              + " (default: ${DEFAULT-VALUE})")
  String raceTable;

  @Option(
      names = "--writer-every-ms",
      split = ",",
      defaultValue = "1000,300,100",
      converter = WholeNumber.PositiveLong.class,
      description = "The racing writer's checkpoint intervals (default: ${DEFAULT-VALUE})")
  List<Long> writerEveryMillis;

  @Option(
      names = "--catalogs",
      split = ",",
      defaultValue = "jdbc,hadoop",
      description = "jdbc (SQLite) and/or hadoop (default: ${DEFAULT-VALUE})")
  List<String> raceCatalogs;

  @Mixin BenchOptions.Rounds rounds;
  @Mixin BenchOptions.Warehouse warehouse;
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!CommitRaceBench.isCdcSize(raceTable)) {
      throw new ParameterException(
          spec.commandLine(),
          "Invalid value for option '--race-table': a CDC table size (upsert, upsert-s, ...), got "
              + raceTable);
    }
    for (String catalog : raceCatalogs) {
      if (!List.of("jdbc", "hadoop").contains(catalog)) {
        throw new ParameterException(
            spec.commandLine(),
            "Invalid value for option '--catalogs': jdbc or hadoop, got " + catalog);
      }
    }
    try {
      if (!new CommitRaceBench(warehouse.base(), out, err)
          .run(raceTable, raceCatalogs, writerEveryMillis, rounds.rounds)) {
        err.println("error: a run's live rows are not the writer's model (see the table)");
        return IcecompactCli.EXIT_JOB_NOT_DONE;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }
}
