package io.icecompact.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The live scan tasks of a job's whole pinned snapshot, by data file location, kept for the groups
 * of that job that this process rewrites after its first.
 *
 * <p>Re-deriving a group's tasks reads the manifests of its partitions again for every group; on a
 * streaming table of many small groups that was 40% of a group's time. A process that rewrites
 * several groups of one job (a warm Lambda container, the embedded runner) scans the snapshot once
 * instead. A process that rewrites one group never pays for the whole scan: the scan is taken on
 * the second group of a job, and only when the snapshot's summary says it holds at most {@code
 * maxDataFiles} data files (tasks are kept without column stats, a few KB each), so the heap stays
 * bounded on a table of a million files, which goes on scanning per group.
 */
final class PinnedSnapshotTasks {
  /** Heap kept per task, a generous estimate (a task without column stats is 1-2 KB). */
  private static final long BYTES_PER_TASK = 64 * 1024;

  private static final int MAX_DATA_FILES = 20_000;

  private final long maxDataFiles;
  private Key seenOnce;
  private Key scannedKey;
  private Map<String, FileScanTask> scanned;

  private record Key(String metadataLocation, long snapshotId, String filterJson) {}

  PinnedSnapshotTasks(long maxDataFiles) {
    this.maxDataFiles = maxDataFiles;
  }

  /** At most 20,000 data files, and at most 1/16 of the heap at 64 KB a task. */
  static PinnedSnapshotTasks forHeap(long maxHeapBytes) {
    return new PinnedSnapshotTasks(Math.min(MAX_DATA_FILES, maxHeapBytes / 16 / BYTES_PER_TASK));
  }

  /**
   * The whole snapshot's tasks under the plan's filter when this job's snapshot has been asked for
   * before and is small enough to keep; empty when the caller should scan just its group's
   * partitions. Callers of the same job wait for one scan rather than each taking their own.
   */
  synchronized Optional<Map<String, FileScanTask>> tasks(
      Table pinnedTable,
      String metadataLocation,
      long snapshotId,
      String filterJson,
      Expression filter) {
    Key key = new Key(metadataLocation, snapshotId, filterJson);
    if (key.equals(scannedKey)) {
      return Optional.of(scanned);
    }
    if (!key.equals(seenOnce)) {
      seenOnce = key;
      return Optional.empty();
    }
    if (!smallEnough(pinnedTable.snapshot(snapshotId))) {
      return Optional.empty();
    }
    scanned = scan(pinnedTable, snapshotId, filter);
    scannedKey = key;
    return Optional.of(scanned);
  }

  private boolean smallEnough(Snapshot snapshot) {
    if (snapshot == null || snapshot.summary() == null) {
      return false;
    }
    String total = snapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP);
    try {
      return total != null && Long.parseLong(total) <= maxDataFiles;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static Map<String, FileScanTask> scan(Table table, long snapshotId, Expression filter) {
    Map<String, FileScanTask> byLocation = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).filter(filter).ignoreResiduals().planFiles()) {
      for (FileScanTask task : tasks) {
        byLocation.put(task.file().location(), task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.copyOf(byLocation);
  }
}
