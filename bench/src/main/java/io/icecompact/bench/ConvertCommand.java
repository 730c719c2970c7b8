package io.icecompact.bench;

import io.icecompact.cli.IcecompactCli;
import io.icecompact.cli.flags.FormatVersion;
import io.icecompact.cli.flags.OneOf;
import io.icecompact.cli.flags.WholeNumber;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bench convert}: issue 27's benchmark, convert-equality-deletes against a rewrite. */
@Command(
    name = "convert",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "Convert mode: a Flink upsert table compacted once into ~64 MB files, then 60 checkpoints"
            + " of upserts; a rewrite of the whole table against convert-equality-deletes, each on"
            + " its own copy in a fresh JVM (wall, CPU, RSS, bytes read), then a full scan of each"
            + " table with Iceberg's generic reader, and issue 27's targets.")
final class ConvertCommand implements Callable<Integer> {
  @Option(
      names = "--size",
      defaultValue = "issue",
      converter = SizeName.class,
      description =
          "Convert table size: issue (16 checkpoints x 2 writers x 500k upserts of keys from 24M,"
              + " compacted into 4 files of ~64 MB, then 60 checkpoints x 2 writers x 10,650"
              + " upserts) or s (seconds, for tests) (default: ${DEFAULT-VALUE})")
  String size;

  @Option(
      names = "--format-version",
      defaultValue = "2",
      converter = FormatVersion.class,
      description =
          "Convert: format version, 2 (position delete files) or 3 (deletion vectors)"
              + " (default: ${DEFAULT-VALUE})")
  int formatVersion;

  @Option(
      names = "--runs",
      defaultValue = "3",
      converter = WholeNumber.Positive.class,
      description =
          "Convert: runs of each contender and scan, each on a fresh copy of the table; medians"
              + " are reported (default: ${DEFAULT-VALUE})")
  int runs;

  @Option(
      names = "--workers",
      defaultValue = "2",
      converter = WholeNumber.Positive.class,
      description = "Convert: worker threads of each job (default: ${DEFAULT-VALUE})")
  int workers;

  @Mixin BenchOptions.Warehouse warehouse;
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ConvertBench.Settings settings =
        new ConvertBench.Settings(
            ConvertTable.Size.named(size),
            formatVersion,
            runs,
            workers,
            // the children start as this JVM did: ./icecompact's options or ICECOMPACT_JAVA_OPTS
            ManagementFactory.getRuntimeMXBean().getInputArguments());
    if (!new ConvertBench(warehouse.base(), settings, out, err).run()) {
      err.println(
          "error: a run changed the table's live rows or its job did not succeed (see the report)");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }

  static final class SizeName extends OneOf {
    SizeName() {
      super("issue", "s");
    }
  }
}
