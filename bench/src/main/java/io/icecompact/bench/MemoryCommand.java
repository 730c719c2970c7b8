package io.icecompact.bench;

import java.util.List;
import picocli.CommandLine.Command;

/**
 * {@code bench memory}: one unpartitioned table (the {@code deletes} shape) rewritten as a single
 * group on one thread, to run with a bounded heap.
 */
@Command(
    name = "memory",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "Memory mode: one unpartitioned table rewritten as a single group on one thread; run it"
            + " with a bounded heap (ICECOMPACT_JAVA_OPTS=-Xmx...) to show the group fits.")
final class MemoryCommand extends RewriteCommand {
  @Override
  boolean memory() {
    return true;
  }

  @Override
  List<String> shapes() {
    return List.of("deletes");
  }

  @Override
  List<Integer> threads() {
    return List.of(1);
  }

  /**
   * The table has no partitions; its equality deletes fall among the newest orders of as many files
   * as {@code paths}' default partition count, as before the modes were subcommands.
   */
  @Override
  int partitions() {
    return Integer.parseInt(PathsCommand.DEFAULT_PARTITIONS);
  }
}
