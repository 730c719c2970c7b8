package io.icecompact.bench;

import io.icecompact.cli.IcecompactCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code bench skipping}: what bin-pack, sort and z-order leave for scan planning to skip. */
@Command(
    name = "skipping",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "Skipping mode: the same table compacted by bin-pack, sort and z-order into ~1 MB files,"
            + " and the files and bytes Iceberg's scan planning keeps for selective predicates.")
final class SkippingCommand implements Callable<Integer> {
  @Mixin BenchOptions.Warehouse warehouse;
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!new SkippingBench(warehouse.base(), out, err).run()) {
      err.println(
          "error: a compaction did not commit or changed the table's live rows (see the table)");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }
}
