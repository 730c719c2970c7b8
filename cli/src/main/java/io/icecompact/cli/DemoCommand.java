package io.icecompact.cli;

import io.icecompact.cli.flags.FormatVersion;
import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact demo}: builds a fragmented streaming table in a local warehouse, compacts it
 * with the real planner, workers and committer, and proves from the table that the live rows are
 * unchanged.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Create a fragmented table in a local warehouse, compact it, and check the rows.")
final class DemoCommand implements Callable<Integer> {
  static final String TABLE = "demo.orders";

  @Option(
      names = "--warehouse",
      paramLabel = "DIR",
      description =
          "Warehouse directory to create (default: a new temporary directory); the table stays there")
  Path warehouse;

  @Option(
      names = "--format-version",
      defaultValue = "2",
      converter = FormatVersion.class,
      description = "Iceberg format version, 2 or 3 (default: ${DEFAULT-VALUE})")
  int formatVersion;

  @Option(
      names = "--workers",
      defaultValue = "2",
      paramLabel = "N",
      converter = WholeNumber.Positive.class,
      description = "Groups rewritten in parallel, 1 or more (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--json", description = "Print the result as JSON on stdout")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    Path dir = warehouse != null ? warehouse : Files.createTempDirectory("icecompact-demo-");
    if (Files.exists(dir.resolve("catalog.db"))) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(),
          "Warehouse " + dir + " already has a catalog; give an empty or new directory");
    }
    Files.createDirectories(dir);
    Map<String, String> catalog = LocalWarehouse.catalogProperties(dir);

    Map<String, Long> before;
    try (TableAccess access = new TableAccess(catalog)) {
      err.printf("creating %s in %s (format v%d)...%n", TABLE, dir, formatVersion);
      Table table =
          FragmentedTable.create(
              access.catalog(),
              TableIdentifier.parse(TABLE),
              FragmentedTable.Shape.demo(formatVersion));
      TableStats.describe("before", table, err);
      before = LiveRows.multiset(table);
    }

    JobSpec job = new JobSpec(null, TABLE, catalog, Map.of(), null, null, null);
    JobResult result = new EmbeddedJobRunner(workers, new StderrProgress(err)).run(job);

    boolean same;
    try (TableAccess access = new TableAccess(catalog)) {
      Table table = access.loadTable(TABLE);
      TableStats.describe("after ", table, err);
      Map<String, Long> after = LiveRows.multiset(table);
      same = after.equals(before);
      err.printf(
          Locale.ROOT,
          "live rows: %d before, %d after, multiset %s%n",
          LiveRows.count(before),
          LiveRows.count(after),
          same ? "identical" : "DIFFERENT");
    }
    int code = CompactCommand.report(result, json, spec.commandLine().getOut());
    return same ? code : IcecompactCli.EXIT_JOB_NOT_DONE;
  }
}
