package io.icecompact.cli;

import io.icecompact.cli.catalog.BoundedGlueClientFactory;
import io.icecompact.cli.flags.KeyValue;
import io.icecompact.core.health.TableHealth;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact health}: every table of the namespaces ranked by seed 003's score, with the
 * decision a sweep would take and why. Reads metadata and dry-runs the planner; writes nothing. Exit 1
 * when a table could not be read (its row says why), 2 for bad flags or an unknown namespace.
 */
@Command(name = "health", mixinStandardHelpOptions = true,
    description = "Rank the tables of one or more namespaces by health score, with the decision and its reason.")
final class HealthCommand implements Callable<Integer> {
  @Option(names = {"-c", "--catalog-property"}, paramLabel = "KEY=VALUE", converter = KeyValue.Converter.class,
      description = "Iceberg catalog property (type or catalog-impl, uri, warehouse, io-impl, ...); repeatable")
  List<KeyValue> catalogProperties = new ArrayList<>();

  @Option(names = "--namespace", required = true, paramLabel = "NS",
      description = "Namespace whose tables are assessed, e.g. analytics; repeatable")
  List<String> namespaces = new ArrayList<>();

  @Option(names = "--json", description = "Print the ranked assessments as JSON")
  boolean json;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Map<String, String> catalog;
    try {
      catalog = BoundedGlueClientFactory.withBoundedGlue(KeyValue.toMap(catalogProperties));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(),
          "Invalid value for option '--catalog-property': " + e.getMessage());
    }
    try (TableAccess access = new TableAccess(catalog)) {
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
    "table", "files", "parts", "excess", "del files", "dels/file", "since", "score", "decision", "reason"};

  /** An aligned table: text columns left, numbers right; the reason last, whole. */
  static void print(PrintWriter out, List<TableAssessment> ranked) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (TableAssessment a : ranked) {
      TableHealth h = a.health();
      if (h == null) {
        rows.add(new String[] {a.table(), "-", "-", "-", "-", "-", "-", "-", a.decision().name(), a.reason()});
        continue;
      }
      rows.add(new String[] {
        a.table(),
        Long.toString(h.dataFiles()),
        Long.toString(h.partitions()),
        Long.toString(h.excessFiles()),
        Long.toString(h.deleteFiles()),
        String.format(Locale.ROOT, "%.0f", h.deletesPerDataFile()),
        Integer.toString(h.snapshotsSinceCompaction()),
        String.format(Locale.ROOT, "%.0f", h.score()),
        a.decision().name(),
        a.reason()});
    }
    int[] widths = new int[HEADER.length - 1];
    for (String[] row : rows) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        boolean text = i == 0 || i == widths.length - 1;
        String format = text ? "%-" + widths[i] + "s  " : "%" + widths[i] + "s  ";
        line.append(String.format(Locale.ROOT, format, row[i]));
      }
      line.append(row[HEADER.length - 1]);
      out.println(line.toString().stripTrailing());
    }
  }
}
