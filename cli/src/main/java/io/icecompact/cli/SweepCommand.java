package io.icecompact.cli;

import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.cli.sweep.EmbeddedSweep;
import io.icecompact.care.TableCare;
import io.icecompact.core.health.TableHealth;
import io.icecompact.core.job.JobJson;
import io.icecompact.planner.fleet.Decision;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact sweep}: {@code health}'s decision over every table of the namespaces, then, on this
 * machine, the best {@code --max-tables} tables whose decision is to compact are compacted and cared
 * for. Exit 0 when every table the sweep compacted committed and every care step ran; 1 otherwise (each
 * row says what); 2 for bad flags or an unknown namespace.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
    description = "Assess every table of the namespaces, compact the best ones and run their care steps.")
final class SweepCommand implements Callable<Integer> {
  @Mixin
  NamespaceOptions fleet;

  @Option(names = "--max-tables", defaultValue = "10", paramLabel = "K", converter = WholeNumber.Positive.class,
      description = "Tables compacted in this sweep, best score first (default: ${DEFAULT-VALUE})")
  int maxTables;

  @Option(names = "--workers", defaultValue = "2", paramLabel = "N", converter = WholeNumber.Positive.class,
      description = "Groups rewritten in parallel in each job, 1 or more (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--json", description = "Print the sweep as JSON")
  boolean json;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Map<String, String> catalog = fleet.catalog();
    EmbeddedSweep.Result result =
        new EmbeddedSweep(workers, line -> {
          err.println(line);
          err.flush();
        }).run(catalog, fleet.namespaces(), maxTables);
    if (json) {
      out.println(JobJson.toPrettyJson(result));
    } else {
      print(out, result);
    }
    out.flush();
    return allDone(result) ? 0 : IcecompactCli.EXIT_JOB_NOT_DONE;
  }

  /** Every compacted table committed and every care step ran, and no table was unreadable. */
  static boolean allDone(EmbeddedSweep.Result result) {
    for (EmbeddedSweep.TableSweep table : result.tables()) {
      if (table.before().decision() == Decision.SKIP_UNREADABLE || table.error() != null) {
        return false;
      }
      if (table.job() != null && !(table.job().status().success() && table.job().verification().verified())) {
        return false;
      }
      if (table.care().stream().anyMatch(TableCare.Outcome::failed)) {
        return false;
      }
    }
    return true;
  }

  static final String[] HEADER = {
    "table", "score", "decision", "job", "files", "score after", "care", "reason"};

  /** One aligned row per table: its decision, what its job did (files before -> after) and its care. */
  static void print(PrintWriter out, EmbeddedSweep.Result result) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (EmbeddedSweep.TableSweep t : result.tables()) {
      TableHealth before = t.before().health();
      TableHealth after = t.after();
      String job = t.job() != null ? t.job().status().name() : t.error() != null ? "ERROR" : "-";
      String files = before == null ? "-"
          : after == null ? Long.toString(before.dataFiles())
          : before.dataFiles() + " -> " + after.dataFiles();
      rows.add(new String[] {
        t.before().table(),
        String.format(Locale.ROOT, "%.0f", t.before().score()),
        t.before().decision().name(),
        job,
        files,
        after == null ? "-" : String.format(Locale.ROOT, "%.0f", after.score()),
        care(t.care()),
        t.error() != null ? t.error() : t.job() != null && t.job().reason() != null ? t.job().reason()
            : t.before().reason()});
    }
    AlignedTable.print(out, rows, Set.of(1, 5));
    out.printf(Locale.ROOT, "%d tables assessed in %s, %d compacted; decisions: %s%n",
        result.tablesAssessed(), String.join(", ", result.namespaces()), result.compacted(), result.decisions());
  }

  /** The steps, each with "failed" or "not run" when it did not succeed. */
  private static String care(List<TableCare.Outcome> care) {
    if (care.isEmpty()) {
      return "-";
    }
    List<String> steps = new ArrayList<>();
    care.forEach(c -> steps.add(switch (c.status()) {
      case DONE -> c.step();
      case FAILED -> c.step() + " (failed)";
      case NOT_RUN -> c.step() + " (not run)";
    }));
    return String.join(",", steps);
  }
}
