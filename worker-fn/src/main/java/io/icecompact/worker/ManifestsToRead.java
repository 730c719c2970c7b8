package io.icecompact.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ManifestEvaluator;

/**
 * How many bytes of manifests a scan of a snapshot with a row filter would read: the data and
 * delete manifests whose partition summaries the filter may match, as Iceberg's scan prunes them.
 * Only the manifest list is read to know.
 */
public final class ManifestsToRead {
  private ManifestsToRead() {}

  /**
   * What a worker's cross-check of a group (see {@link LiveTaskResolver}) would read: the manifests
   * of the group's partitions, within the plan's filter.
   */
  public static long forGroup(
      Table table, long snapshotId, Expression planFilter, List<FileScanTask> tasks) {
    return bytes(table, snapshotId, Expressions.and(planFilter, GroupScanFilter.of(tasks)));
  }

  static long bytes(Table table, long snapshotId, Expression rowFilter) {
    Snapshot snapshot = table.snapshot(snapshotId);
    Map<Integer, ManifestEvaluator> evaluators = new HashMap<>();
    List<ManifestFile> manifests = new ArrayList<>(snapshot.dataManifests(table.io()));
    manifests.addAll(snapshot.deleteManifests(table.io()));
    long total = 0;
    for (ManifestFile manifest : manifests) {
      ManifestEvaluator evaluator =
          evaluators.computeIfAbsent(
              manifest.partitionSpecId(),
              specId -> ManifestEvaluator.forRowFilter(rowFilter, table.specs().get(specId), true));
      if (evaluator.eval(manifest)) {
        total += manifest.length();
      }
    }
    return total;
  }
}
