package io.icecompact.bench;

import io.icecompact.cli.flags.OneOf;
import io.icecompact.cli.flags.WholeNumber;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench paths}: each table shape's groups rewritten per path, thread count, column threads
 * and prefetch setting (and per sort order with {@code --sort-orders}).
 */
@Command(
    name = "paths",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = "Generate fragmented tables and compare the rewrite paths on the same groups.")
final class PathsCommand extends RewriteCommand {
  static final String DEFAULT_PARTITIONS = "10";

  @Option(
      names = "--partitions",
      defaultValue = DEFAULT_PARTITIONS,
      converter = WholeNumber.Positive.class,
      description = "Day partitions (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(
      names = "--shapes",
      split = ",",
      defaultValue = "deletes,no-deletes",
      converter = ShapeName.class,
      description =
          "Table shapes: 'deletes' (position deletes, and equality deletes of recent orders as a CDC"
              + " feed writes them), 'scattered-deletes' (equality-deleted ids drawn from every order: nearly every"
              + " file holds a deleted row), 'no-deletes' (default: ${DEFAULT-VALUE})")
  List<String> shapes;

  @Mixin BenchOptions.Threads threads;

  @Override
  boolean memory() {
    return false;
  }

  @Override
  List<String> shapes() {
    return shapes;
  }

  @Override
  List<Integer> threads() {
    return threads.threads;
  }

  @Override
  int partitions() {
    return partitions;
  }

  static final class ShapeName extends OneOf {
    ShapeName() {
      super("deletes", "scattered-deletes", "no-deletes");
    }
  }
}
