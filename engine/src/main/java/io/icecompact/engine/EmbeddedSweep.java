package io.icecompact.engine;

import io.icecompact.care.TableCare;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.options.ConvertOptions;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.fleet.Deadline;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessment;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import io.icecompact.planner.fleet.TableHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The sweep on one machine: assess every table of the namespaces ({@link FleetAssessor}), compact
 * the best {@code maxTables} whose decision starts a job ({@link Decision#COMPACT}, or {@link
 * Decision#CONVERT_EQUALITY_DELETES} whose job converts equality deletes), one after another, each
 * with its policy's options and partition filter as {@code compact} runs a job, then run the care
 * steps its policy lists ({@link TableCare}), and read each compacted table's health again from its
 * metadata.
 *
 * <p>A table whose job fails or ends without committing is reported as such, and its care steps do
 * not run (orphan removal after an unknown commit could delete files that are live); the sweep goes
 * on with the next table.
 */
public final class EmbeddedSweep {
  /**
   * One assessed table and, when the sweep compacted it, what happened.
   *
   * @param before the assessment that decided
   * @param job the compaction's result (null when not compacted)
   * @param error why the compaction could not run (null when it ran)
   * @param care what each care step did (empty when not compacted or not committed)
   * @param after the table's health read again after the sweep (null when not compacted)
   */
  public record TableSweep(
      TableAssessment before,
      JobResult job,
      String error,
      List<TableCare.Outcome> care,
      TableHealth after) {}

  /**
   * The whole sweep: every table assessed, in rank order, and the counts of the decisions.
   *
   * @param dryRun true: nothing was compacted, each chosen table's care steps were previewed
   * @param compacted tables the sweep chose to compact (a job ran, or could not start: see {@code
   *     outcomes})
   * @param outcomes how the chosen tables ended: COMMITTED, PARTIAL, FAILED, UNKNOWN, ... from each
   *     job's result, ERROR when the job could not run, PREVIEWED on a dry run
   * @param notAssessed the tables the assessment had no time for (with a deadline only)
   */
  public record Result(
      boolean dryRun,
      List<String> namespaces,
      int tablesAssessed,
      Map<Decision, Integer> decisions,
      int compacted,
      Map<String, Integer> outcomes,
      List<TableSweep> tables,
      FleetAssessment.NotAssessed notAssessed) {}

  private final int workers;
  private final Consumer<String> progress;
  private final List<CareStep> careSteps;
  private final boolean dryRun;

  /**
   * With {@code workers} groups rewritten at once per job; {@code progress} receives a line per
   * step.
   */
  public EmbeddedSweep(int workers, Consumer<String> progress) {
    this(workers, progress, null, false);
  }

  /**
   * @param careSteps the care steps of a table that does not set {@code icecompact.steps} (null:
   *     the defaults, which delete nothing)
   * @param dryRun compact nothing; preview each chosen table's care steps instead
   */
  public EmbeddedSweep(
      int workers, Consumer<String> progress, List<CareStep> careSteps, boolean dryRun) {
    this.workers = workers;
    this.progress = progress;
    this.careSteps = careSteps;
    this.dryRun = dryRun;
  }

  public Result run(Map<String, String> catalog, List<String> namespaces, int maxTables) {
    return run(catalog, namespaces, maxTables, Deadline.none());
  }

  /**
   * The sweep, its assessment stopping at {@code deadline} (the tables left are in the result);
   * each run starts the assessment elsewhere in the table list, as the state machine's sweeps do.
   */
  public Result run(
      Map<String, String> catalog, List<String> namespaces, int maxTables, Deadline deadline) {
    FleetAssessment assessed;
    try (TableAccess access = new TableAccess(catalog)) {
      assessed =
          new FleetAssessor(access, careSteps)
              .assess(namespaces, deadline, Long.toString(System.currentTimeMillis()));
    }
    List<TableAssessment> ranked = assessed.ranked();
    Map<Decision, Integer> decisions = new TreeMap<>();
    ranked.forEach(a -> decisions.merge(a.decision(), 1, Integer::sum));
    List<TableSweep> tables = new ArrayList<>();
    int compacted = 0;
    for (TableAssessment assessment : ranked) {
      if (!assessment.decision().startsJob() || compacted >= maxTables) {
        tables.add(new TableSweep(assessment, null, null, List.of(), null));
        continue;
      }
      compacted++;
      tables.add(dryRun ? preview(catalog, assessment) : compactAndCare(catalog, assessment));
    }
    Map<String, Integer> outcomes = new TreeMap<>();
    for (TableSweep table : tables) {
      String outcome =
          table.job() != null
              ? table.job().status().name()
              : table.error() != null ? "ERROR" : null;
      if (outcome != null) {
        outcomes.merge(outcome, 1, Integer::sum);
      }
    }
    if (dryRun && compacted > 0) {
      outcomes.put("PREVIEWED", compacted);
    }
    return new Result(
        dryRun,
        List.copyOf(namespaces),
        ranked.size(),
        decisions,
        compacted,
        outcomes,
        tables,
        assessed.notAssessed());
  }

  /**
   * A dry run's table: its care steps previewed on the table as it is now (before any compaction).
   */
  private TableSweep preview(Map<String, String> catalog, TableAssessment assessment) {
    String table = assessment.table();
    progress.accept(
        "would compact "
            + table
            + " (score "
            + Math.round(assessment.score())
            + "): "
            + assessment.reason());
    try (TableAccess access = new TableAccess(catalog)) {
      List<TableCare.Outcome> care =
          new TableCare(access, table, null, () -> {})
              .preview(assessment.policy().steps(), progress);
      return new TableSweep(assessment, null, null, care, null);
    }
  }

  private TableSweep compactAndCare(Map<String, String> catalog, TableAssessment assessment) {
    String table = assessment.table();
    TablePolicy policy = assessment.policy();
    progress.accept(
        (assessment.decision() == Decision.CONVERT_EQUALITY_DELETES
                ? "converting the equality deletes of "
                : "compacting ")
            + table
            + " (score "
            + Math.round(assessment.score())
            + ")");
    JobResult job;
    try {
      job = new EmbeddedJobRunner(workers, ProgressListener.NONE).run(jobSpec(catalog, assessment));
    } catch (RuntimeException e) {
      progress.accept(table + ": not compacted: " + e.getMessage());
      return new TableSweep(
          assessment,
          null,
          e.getClass().getSimpleName() + ": " + e.getMessage(),
          List.of(),
          healthAfter(catalog, table));
    }
    progress.accept(
        table
            + ": "
            + job.status()
            + ", "
            + job.rewrittenDataFilesCount()
            + " files -> "
            + job.addedDataFilesCount());
    List<TableCare.Outcome> care = List.of();
    if (job.status().careMayFollow()) {
      try (TableAccess access = new TableAccess(catalog)) {
        care = new TableCare(access, table, null, () -> {}).run(policy.steps(), progress);
      }
    }
    return new TableSweep(assessment, job, null, care, healthAfter(catalog, table));
  }

  /**
   * The job the decision asks for: the policy's options and partition filter, and the conversion of
   * equality deletes when that was decided (a rewrite, the default action, otherwise).
   */
  static JobSpec jobSpec(Map<String, String> catalog, TableAssessment assessment) {
    TablePolicy policy = assessment.policy();
    if (assessment.decision() == Decision.CONVERT_EQUALITY_DELETES) {
      // a conversion takes only the grouping and commit options of the table's policy
      return new JobSpec(
          null,
          assessment.table(),
          catalog,
          ConvertOptions.applicable(policy.options()),
          null,
          policy.where(),
          null,
          JobAction.CONVERT_EQUALITY_DELETES);
    }
    return new JobSpec(
        null, assessment.table(), catalog, policy.options(), null, policy.where(), null);
  }

  private static TableHealth healthAfter(Map<String, String> catalog, String table) {
    try (TableAccess access = new TableAccess(catalog)) {
      return TableHealth.of(table, access.loadTable(table));
    } catch (RuntimeException e) {
      return null;
    }
  }
}
