package io.icecompact.cli;

import io.icecompact.core.job.JobJson;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import io.icecompact.planner.fleet.TableHealth;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact health}: every table of the namespaces ranked by the health score
 * ([fleet](docs/fleet.md#the-health-score)), with the decision a sweep would take and why. Reads
 * metadata and dry-runs the planner; writes nothing. Exit 1 when a table could not be read (its row
 * says why), 2 for bad flags or an unknown namespace.
 */
@Command(
    name = "health",
    mixinStandardHelpOptions = true,
    description =
        "Rank the tables of one or more namespaces by health score, with the decision and its reason.")
final class HealthCommand implements Callable<Integer> {
  @Mixin NamespaceOptions fleet;

  @Option(names = "--json", description = "Print the ranked assessments as JSON")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<String> namespaces = fleet.namespaces();
    try (TableAccess access = new TableAccess(fleet.catalog())) {
      List<TableAssessment> ranked = new FleetAssessor(access).assess(namespaces);
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("namespaces", namespaces);
        doc.put("tables", ranked);
        out.println(JobJson.toPrettyJson(doc));
      } else {
        print(out, ranked);
      }
      out.flush();
      // the table is printed whole either way; a script must still notice what it could not read
      boolean unreadable = ranked.stream().anyMatch(a -> a.decision() == Decision.SKIP_UNREADABLE);
      return unreadable ? IcecompactCli.EXIT_JOB_NOT_DONE : 0;
    }
  }

  static final String[] HEADER = {
    "table",
    "files",
    "parts",
    "excess",
    "del files",
    "dels/file",
    "eq keys/MB",
    "size/target",
    "since",
    "score",
    "decision",
    "reason"
  };

  /** The data files' mean size as a percentage of the table's target; "<1%" rather than "0%". */
  static String percentOfTarget(TableHealth h) {
    if (h.dataFiles() == 0 || h.targetFileSizeBytes() <= 0) {
      return "-";
    }
    double percent = 100.0 * h.meanDataFileBytes() / h.targetFileSizeBytes();
    return percent < 1 ? "<1%" : String.format(Locale.ROOT, "%.0f%%", percent);
  }

  /** An aligned table: text columns left, numbers right; the reason last, whole. */
  static void print(PrintWriter out, List<TableAssessment> ranked) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (TableAssessment a : ranked) {
      TableHealth h = a.health();
      if (h == null) {
        rows.add(
            new String[] {
              a.table(),
              "-",
              "-",
              "-",
              "-",
              "-",
              "-",
              "-",
              "-",
              "-",
              a.decision().name(),
              a.reason()
            });
        continue;
      }
      rows.add(
          new String[] {
            a.table(),
            Long.toString(h.dataFiles()),
            Long.toString(h.partitions()),
            Long.toString(h.excessFiles()),
            Long.toString(h.deleteFiles()),
            String.format(Locale.ROOT, "%.0f", h.deletesPerDataFile()),
            String.format(Locale.ROOT, "%.0f", h.equalityKeysPerMb()),
            percentOfTarget(h),
            Integer.toString(h.snapshotsSinceCompaction()),
            String.format(Locale.ROOT, "%.0f", h.score()),
            a.decision().name(),
            a.reason()
          });
    }
    // text columns (table, decision) left, numbers right
    AlignedTable.print(out, rows, Set.of(1, 2, 3, 4, 5, 6, 7, 8, 9));
    EqualityDeleteEstimates.print(out, ranked);
  }
}
