package io.icecompact.care;

import io.icecompact.core.policy.CareStep;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.text.Abbreviated;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.Table;

/**
 * Runs a table's care steps after its rewrite, each on the table as the catalog has it then, in one
 * order whatever the policy's listing: the steps that commit first (delete cleanup, then the
 * manifests' rewrite), then snapshot expiry, which deletes what those commits left unreferenced,
 * then orphan removal, which so finds only what no expiry accounts for. A step that fails is
 * reported and the next still runs: each step is safe on its own (see docs/fleet.md, "Care steps").
 * The embedded sweep and the {@code CareForTable} Lambda both run this.
 *
 * <p>Before each step, {@code beforeEachStep} runs (the Lambda checks there that its execution
 * still holds the table's lease); when it throws, that step and the ones after it are reported as
 * not run.
 */
public final class TableCare {
  /** How a step ended. */
  public enum Status {
    /** It ran and its read-back found nothing unexpected. */
    DONE,
    /** It threw, or its read-back found problems. */
    FAILED,
    /**
     * It refused before deleting anything ({@link CareRefusedException}): {@code gc.enabled=false},
     * a table of the catalog that may share files and cannot be read, a FileIO that cannot list.
     * Counts as not done.
     */
    REFUSED,
    /**
     * A dry run: the step decided what it would do and did nothing ({@link TableCareStep#preview}).
     */
    PREVIEWED,
    /** It did not run: {@code beforeEachStep} refused (e.g. the lease was lost). */
    NOT_RUN
  }

  /**
   * What one step did.
   *
   * @param step the step's policy name
   * @param summary one line (the report's, or why it failed or did not run)
   * @param report the step's whole report, read back from metadata and storage (null unless it ran)
   * @param error the exception's type and message, when it threw or did not run
   */
  public record Outcome(
      String step, Status status, String summary, CareReport report, String error) {
    public boolean failed() {
      return status != Status.DONE && status != Status.PREVIEWED;
    }
  }

  /** The order steps run in. */
  static final List<CareStep> ORDER =
      List.of(
          CareStep.DELETE_CLEANUP,
          CareStep.REWRITE_MANIFESTS,
          CareStep.EXPIRE_SNAPSHOTS,
          CareStep.REMOVE_ORPHANS);

  private final TableAccess access;
  private final String tableName;
  private final String workBase;
  private final Runnable beforeEachStep;
  private final DeploymentScope scope;

  /** With no location bounds ({@link DeploymentScope#unrestricted()}): the embedded runner. */
  public TableCare(TableAccess access, String tableName, String workBase, Runnable beforeEachStep) {
    this(access, tableName, workBase, beforeEachStep, DeploymentScope.unrestricted());
  }

  /**
   * @param access the catalog the table is loaded from before each step
   * @param tableName the table, as jobs name it
   * @param workBase the jobs' work location base when they name one (null: {@code
   *     <table>/_icecompact})
   * @param beforeEachStep runs before each step; an exception stops this and the remaining steps
   * @param scope the deployment's locations: a table of the catalog outside them that cannot be
   *     read is named as not checked instead of refusing expiry and orphan removal ({@link
   *     SharingScreen})
   */
  public TableCare(
      TableAccess access,
      String tableName,
      String workBase,
      Runnable beforeEachStep,
      DeploymentScope scope) {
    this.access = access;
    this.tableName = tableName;
    this.workBase = workBase;
    this.beforeEachStep = beforeEachStep;
    this.scope = scope;
  }

  /**
   * The steps of {@code steps} in {@link #ORDER}, each reported; {@code progress} gets a line per
   * step.
   */
  public List<Outcome> run(List<CareStep> steps, Consumer<String> progress) {
    return run(steps, progress, false);
  }

  /**
   * What each of {@code steps} would do now ({@link TableCareStep#preview}), committing and
   * deleting nothing; a step that would refuse says so.
   */
  public List<Outcome> preview(List<CareStep> steps, Consumer<String> progress) {
    return run(steps, progress, true);
  }

  private List<Outcome> run(List<CareStep> steps, Consumer<String> progress, boolean preview) {
    List<Outcome> outcomes = new ArrayList<>();
    String refusal = null;
    for (CareStep step : ORDER.stream().filter(steps::contains).toList()) {
      String name = step.propertyName();
      if (refusal == null) {
        try {
          beforeEachStep.run();
        } catch (RuntimeException e) {
          refusal = describe(e);
        }
      }
      if (refusal != null) {
        progress.accept(tableName + ": " + name + " not run: " + refusal);
        outcomes.add(new Outcome(name, Status.NOT_RUN, "not run: " + refusal, null, refusal));
        continue;
      }
      outcomes.add(runStep(step, progress, preview));
    }
    return outcomes;
  }

  private Outcome runStep(CareStep step, Consumer<String> progress, boolean preview) {
    String name = step.propertyName();
    try {
      Table table = access.loadTable(tableName);
      CareReport report;
      // only the steps that delete look at the other tables (on Glue, through a client of its own)
      boolean deletes = step == CareStep.EXPIRE_SNAPSHOTS || step == CareStep.REMOVE_ORPHANS;
      try (SharingLookup lookup = deletes ? SharingLookup.of(access, scope) : null) {
        TableCareStep<?> careStep = step(step, lookup);
        report = preview ? careStep.preview(table) : careStep.run(table);
      }
      Status status =
          !report.problems().isEmpty() ? Status.FAILED : preview ? Status.PREVIEWED : Status.DONE;
      String summary =
          status != Status.FAILED
              ? report.summary()
              : report.summary()
                  + "; "
                  + report.problems().size()
                  + " problems, first: "
                  + report.problems().get(0);
      progress.accept(tableName + ": " + name + ": " + summary);
      return new Outcome(name, status, summary, report, null);
    } catch (CareRefusedException e) {
      String error = describe(e);
      progress.accept(tableName + ": " + name + " refused: " + e.getMessage());
      return new Outcome(name, Status.REFUSED, "refused: " + e.getMessage(), null, error);
    } catch (RuntimeException e) {
      String error = describe(e);
      progress.accept(tableName + ": " + name + " failed: " + error);
      return new Outcome(name, Status.FAILED, "failed: " + error, null, error);
    }
  }

  private static String describe(RuntimeException e) {
    return e.getClass().getSimpleName()
        + ": "
        + Abbreviated.text(String.valueOf(e.getMessage()), 500);
  }

  private TableCareStep<?> step(CareStep step, SharingLookup lookup) {
    return switch (step) {
      case EXPIRE_SNAPSHOTS -> new ExpireSnapshotsStep(lookup, tableName);
      case REWRITE_MANIFESTS -> new RewriteManifestsStep();
      case REMOVE_ORPHANS ->
          new OrphanFilesStep(
              lookup,
              tableName,
              OrphanFilesStep.DEFAULT_MIN_AGE,
              workBase,
              Clock.systemUTC(),
              table -> {});
      case DELETE_CLEANUP -> new DeleteCleanupStep();
    };
  }
}
