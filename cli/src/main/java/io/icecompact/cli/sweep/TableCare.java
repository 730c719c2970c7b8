package io.icecompact.cli.sweep;

import io.icecompact.committer.care.DeleteCleanupStep;
import io.icecompact.committer.care.ExpireSnapshotsStep;
import io.icecompact.committer.care.OrphanFilesStep;
import io.icecompact.committer.care.RewriteManifestsStep;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.Table;

/**
 * Runs a table's care steps after its rewrite, each on the table as the catalog has it then, in one
 * order whatever the policy's listing: the steps that commit first (delete cleanup, then the manifests'
 * rewrite), then snapshot expiry, which deletes what those commits left unreferenced, then orphan removal,
 * which so finds only what no expiry accounts for. A step that fails is reported and the next still
 * runs: each step is safe on its own (see docs/fleet.md, "Care steps").
 */
public final class TableCare {
  /** What one step did: its report (read back from metadata and storage), or why it failed. */
  public record Outcome(String step, Object report, String error) {}

  /** The order steps run in. */
  static final List<CareStep> ORDER =
      List.of(CareStep.DELETE_CLEANUP, CareStep.REWRITE_MANIFESTS, CareStep.EXPIRE_SNAPSHOTS, CareStep.REMOVE_ORPHANS);

  private TableCare() {}

  public static List<Outcome> run(
      Map<String, String> catalog, String tableName, List<CareStep> steps, Consumer<String> progress) {
    List<Outcome> outcomes = new ArrayList<>();
    try (TableAccess access = new TableAccess(catalog)) {
      for (CareStep step : ORDER.stream().filter(steps::contains).toList()) {
        try {
          Table table = access.loadTable(tableName);
          Object report = step(step).run(table);
          progress.accept(tableName + ": " + step.propertyName() + " done");
          outcomes.add(new Outcome(step.propertyName(), report, null));
        } catch (RuntimeException e) {
          progress.accept(tableName + ": " + step.propertyName() + " failed: " + e.getMessage());
          outcomes.add(new Outcome(step.propertyName(), null, e.getClass().getSimpleName() + ": " + e.getMessage()));
        }
      }
    }
    return outcomes;
  }

  private static io.icecompact.committer.care.TableCareStep<?> step(CareStep step) {
    return switch (step) {
      case EXPIRE_SNAPSHOTS -> new ExpireSnapshotsStep();
      case REWRITE_MANIFESTS -> new RewriteManifestsStep();
      case REMOVE_ORPHANS -> new OrphanFilesStep();
      case DELETE_CLEANUP -> new DeleteCleanupStep();
    };
  }
}
