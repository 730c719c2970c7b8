package io.icecompact.committer;

import io.icecompact.core.job.JobPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.CloseableIterable;

/**
 * After Iceberg refuses a commit, finds which groups the concurrent commits touched: an input file
 * no longer live (rewritten or deleted), or a new position delete / deletion vector on an input
 * file. New equality deletes are harmless while rewritten files keep the starting sequence number,
 * so they count only when {@code use-starting-sequence-number=false}. Uses Iceberg's own scan
 * planning so that "which deletes apply" is decided exactly as readers decide it.
 */
final class ConflictDetector {
  private ConflictDetector() {}

  /** Group index to the reason it conflicts; empty when no group's inputs changed. */
  static Map<Integer, String> detect(
      Table table, JobPlan plan, Collection<ReadyGroup> groups, boolean useStartingSequenceNumber) {
    Snapshot current = table.currentSnapshot();
    Map<String, Set<String>> wanted = new HashMap<>();
    for (ReadyGroup group : groups) {
      for (FileScanTask task : group.tasks()) {
        wanted.put(task.file().location(), new HashSet<>());
      }
    }
    Map<String, Map<String, DeleteFile>> liveDeletes = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(current.snapshotId())
            .filter(ExpressionParser.fromJson(plan.filter(), table.schema()))
            .ignoreResiduals()
            .planFiles()) {
      for (FileScanTask task : tasks) {
        if (wanted.containsKey(task.file().location())) {
          Map<String, DeleteFile> deletes = new HashMap<>();
          task.deletes().forEach(delete -> deletes.put(delete.location(), delete));
          liveDeletes.put(task.file().location(), deletes);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    Map<Integer, String> conflicts = new LinkedHashMap<>();
    for (ReadyGroup group : groups) {
      for (FileScanTask task : group.tasks()) {
        String path = task.file().location();
        Map<String, DeleteFile> now = liveDeletes.get(path);
        if (now == null) {
          conflicts.put(
              group.index(),
              String.format(
                  "input file %s is no longer live in snapshot %d: a concurrent commit rewrote or deleted it",
                  path, current.snapshotId()));
          break;
        }
        Set<String> before = new HashSet<>();
        task.deletes().stream().map(ContentFile::location).forEach(before::add);
        String added =
            now.values().stream()
                .filter(delete -> !before.contains(delete.location()))
                .filter(
                    delete ->
                        delete.content() == FileContent.POSITION_DELETES
                            || !useStartingSequenceNumber)
                .map(ContentFile::location)
                .findFirst()
                .orElse(null);
        if (added != null) {
          conflicts.put(
              group.index(),
              String.format(
                  "a concurrent commit added delete file %s for input file %s", added, path));
          break;
        }
      }
    }
    return conflicts;
  }
}
