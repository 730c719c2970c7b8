package io.icecompact.cli;

import io.icecompact.care.TableCare;
import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.engine.EmbeddedSweep;
import io.icecompact.planner.fleet.Deadline;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessment;
import io.icecompact.planner.fleet.TableHealth;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact sweep}: {@code health}'s decision over every table of the namespaces, then, on
 * this machine, the best {@code --max-tables} tables whose decision is to compact are compacted and
 * cared for. Exit 0 when every table the sweep compacted committed and every care step ran; 1
 * otherwise (each row says what); 2 for bad flags or an unknown namespace.
 */
@Command(
    name = "sweep",
    mixinStandardHelpOptions = true,
    description =
        "Assess every table of the namespaces, compact the best ones and run their care steps.")
final class SweepCommand implements Callable<Integer> {
  @Mixin NamespaceOptions fleet;

  @Option(
      names = "--max-tables",
      defaultValue = "10",
      paramLabel = "K",
      converter = WholeNumber.Positive.class,
      description = "Tables compacted in this sweep, best score first (default: ${DEFAULT-VALUE})")
  int maxTables;

  @Option(
      names = "--workers",
      defaultValue = "2",
      paramLabel = "N",
      converter = WholeNumber.Positive.class,
      description =
          "Groups rewritten in parallel in each job, 1 or more (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(
      names = "--care-steps",
      paramLabel = "STEPS",
      description =
          "Care steps of every table that does not set icecompact.steps, comma-separated, or none "
              + "(default: rewrite-manifests, plus delete-cleanup on v2 tables with delete files). expire-snapshots "
              + "and remove-orphans delete files and run only where listed here or in a table's icecompact.steps")
  String careSteps;

  @Option(
      names = "--dry-run",
      description =
          "Compact nothing: say which tables would be compacted and what each care step would remove")
  boolean dryRun;

  @Option(names = "--json", description = "Print the sweep as JSON")
  boolean json;

  @Option(
      names = "--assess-within",
      paramLabel = "SECONDS",
      converter = WholeNumber.NonNegative.class,
      description =
          "Stop assessing tables after this many seconds and sweep those assessed; the rest are "
              + "listed as not assessed (default: no limit)")
  Integer assessWithin;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Map<String, String> catalog = fleet.catalog();
    List<CareStep> steps;
    try {
      steps = careSteps == null ? null : TablePolicy.parseStepList("--care-steps", careSteps);
    } catch (InvalidJobInputException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--care-steps': " + e.getMessage());
    }
    EmbeddedSweep.Result result =
        new EmbeddedSweep(
                workers,
                line -> {
                  err.println(line);
                  err.flush();
                },
                steps,
                dryRun)
            .run(
                catalog,
                fleet.namespaces(),
                maxTables,
                assessWithin == null
                    ? Deadline.none()
                    : Deadline.in(Duration.ofSeconds(assessWithin)));
    if (json) {
      out.println(JobJson.toPrettyJson(result));
    } else {
      print(out, result);
    }
    out.flush();
    return allDone(result) ? 0 : IcecompactCli.EXIT_JOB_NOT_DONE;
  }

  /**
   * Every compacted table committed and every care step ran (none failed, was refused or not run),
   * and no table was unreadable.
   */
  static boolean allDone(EmbeddedSweep.Result result) {
    for (EmbeddedSweep.TableSweep table : result.tables()) {
      if (table.before().decision() == Decision.SKIP_UNREADABLE || table.error() != null) {
        return false;
      }
      if (table.job() != null
          && !(table.job().status().success() && table.job().verification().verified())) {
        return false;
      }
      if (table.care().stream().anyMatch(TableCare.Outcome::failed)) {
        return false;
      }
    }
    return true;
  }

  static final String[] HEADER = {
    "table", "score", "decision", "job", "files", "score after", "care", "reason"
  };

  /**
   * One aligned row per table: its decision, what its job did (files before -> after) and its care.
   */
  static void print(PrintWriter out, EmbeddedSweep.Result result) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (EmbeddedSweep.TableSweep t : result.tables()) {
      TableHealth before = t.before().health();
      TableHealth after = t.after();
      String job =
          t.job() != null
              ? t.job().status().name()
              : t.error() != null
                  ? "ERROR"
                  : result.dryRun() && !t.care().isEmpty() ? "(dry run)" : "-";
      String files =
          before == null
              ? "-"
              : after == null
                  ? Long.toString(before.dataFiles())
                  : before.dataFiles() + " -> " + after.dataFiles();
      rows.add(
          new String[] {
            t.before().table(),
            String.format(Locale.ROOT, "%.0f", t.before().score()),
            t.before().decision().name(),
            job,
            files,
            after == null ? "-" : String.format(Locale.ROOT, "%.0f", after.score()),
            care(t.care()),
            t.error() != null
                ? t.error()
                : t.job() != null && t.job().reason() != null
                    ? t.job().reason()
                    : t.before().reason()
          });
    }
    AlignedTable.print(out, rows, Set.of(1, 5));
    if (result.dryRun()) {
      // what each step would remove, before anyone opts into it
      for (EmbeddedSweep.TableSweep t : result.tables()) {
        t.care()
            .forEach(
                c ->
                    out.printf(
                        Locale.ROOT, "%s %s: %s%n", t.before().table(), c.step(), c.summary()));
      }
    }
    Map<TableCare.Status, Integer> care = new java.util.TreeMap<>();
    result.tables().forEach(t -> t.care().forEach(c -> care.merge(c.status(), 1, Integer::sum)));
    out.printf(
        Locale.ROOT,
        "%d tables assessed in %s, %d %s%s; care steps: %s; decisions: %s%n",
        result.tablesAssessed(),
        String.join(", ", result.namespaces()),
        result.compacted(),
        result.dryRun() ? "would be compacted (dry run: nothing was written)" : "chosen to compact",
        result.outcomes().isEmpty() ? "" : " " + result.outcomes(),
        care.isEmpty() ? "none" : care,
        result.decisions());
    FleetAssessment.NotAssessed left = result.notAssessed();
    if (left != null && left.any()) {
      out.printf(
          Locale.ROOT,
          "not assessed (--assess-within): %d tables%s%s%n",
          left.count(),
          left.tables().isEmpty()
              ? ""
              : " ("
                  + String.join(", ", left.tables())
                  + (left.count() > left.tables().size() ? ", ..." : "")
                  + ")",
          left.namespaces().isEmpty()
              ? ""
              : "; namespaces not listed: " + String.join(", ", left.namespaces()));
    }
  }

  /** The steps, each with "failed" or "not run" when it did not succeed. */
  private static String care(List<TableCare.Outcome> care) {
    if (care.isEmpty()) {
      return "-";
    }
    List<String> steps = new ArrayList<>();
    care.forEach(
        c ->
            steps.add(
                switch (c.status()) {
                  case DONE -> c.step();
                  case FAILED -> c.step() + " (failed)";
                  case REFUSED -> c.step() + " (refused)";
                  case NOT_RUN -> c.step() + " (not run)";
                  case PREVIEWED -> c.step() + " (preview)";
                }));
    return String.join(",", steps);
  }
}
