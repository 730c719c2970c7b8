package io.icecompact.worker;

import io.icecompact.core.error.FileNotLiveException;
import io.icecompact.core.error.PlanIntegrityException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-derives, from the pinned snapshot's own metadata, the scan task (data file plus the delete
 * files that apply to it) of every file a group names: a cross-check of the group document. A file
 * that is not live is refused rather than read blind, and delete files that differ from the plan's
 * mean the plan does not describe this snapshot.
 *
 * <p>The cross-check reads the manifests whose partitions overlap the group's. Where those are more
 * than {@link #CROSS_CHECK_MANIFEST_BYTES} (a table whose manifests each span every partition, as
 * streaming appends leave them: every worker would read the whole table's metadata), the group
 * document's tasks are used as they are. They are exactly what Iceberg's planner derived from the
 * same snapshot, sequence numbers included, and their digest was checked against the plan index;
 * and the committer's {@code RewriteFiles} refuses to replace a file the table does not hold.
 */
public final class LiveTaskResolver {
  private static final Logger LOG = LoggerFactory.getLogger(LiveTaskResolver.class);

  /** The most manifest bytes one worker reads to cross-check its group: 32 MB. */
  public static final long CROSS_CHECK_MANIFEST_BYTES = 32L << 20;

  private LiveTaskResolver() {}

  /**
   * The planned tasks as the pinned snapshot has them; {@code snapshotTasks}, when present, are the
   * whole snapshot's tasks by location (see {@link PinnedSnapshotTasks}), otherwise the group's
   * partitions are scanned, unless that means reading more than {@code manifestBudgetBytes} of
   * manifests: then {@code planned} is returned as it is.
   */
  static List<FileScanTask> resolve(
      Table pinnedTable,
      long snapshotId,
      Expression filter,
      List<FileScanTask> planned,
      Optional<Map<String, FileScanTask>> snapshotTasks,
      long manifestBudgetBytes) {
    Map<String, FileScanTask> wanted = new HashMap<>();
    planned.forEach(task -> wanted.put(task.file().location(), task));
    Map<String, FileScanTask> live = new HashMap<>();
    if (snapshotTasks.isPresent()) {
      for (String location : wanted.keySet()) {
        FileScanTask task = snapshotTasks.get().get(location);
        if (task != null) {
          live.put(location, task);
        }
      }
    } else {
      Expression groupFilter = Expressions.and(filter, GroupScanFilter.of(planned));
      long manifestBytes = ManifestsToRead.bytes(pinnedTable, snapshotId, groupFilter);
      if (manifestBytes > manifestBudgetBytes) {
        LOG.info(
            "Group of {} files: its tasks as planned; cross-checking them would read {} MB of manifests"
                + " (more than {} MB)",
            planned.size(),
            manifestBytes >> 20,
            manifestBudgetBytes >> 20);
        return planned;
      }
      scanGroupPartitions(pinnedTable, snapshotId, groupFilter, wanted, live);
    }

    Set<String> missing = new TreeSet<>(wanted.keySet());
    missing.removeAll(live.keySet());
    if (!missing.isEmpty()) {
      throw new FileNotLiveException(
          String.format(
              "%d requested file(s) are not live in pinned snapshot %d; refusing to read them: %s",
              missing.size(), snapshotId, missing));
    }

    List<FileScanTask> resolved = new ArrayList<>(planned.size());
    DeleteIds ids = new DeleteIds();
    for (FileScanTask plannedTask : planned) {
      FileScanTask liveTask = live.get(plannedTask.file().location());
      if (!ids.of(plannedTask).equals(ids.of(liveTask))) {
        Set<String> plannedDeletes = deletePaths(plannedTask);
        Set<String> liveDeletes = deletePaths(liveTask);
        throw new PlanIntegrityException(
            String.format(
                "Delete files of %s differ from the plan: snapshot %d has %s, the plan has %s",
                plannedTask.file().location(), snapshotId, liveDeletes, plannedDeletes));
      }
      resolved.add(liveTask);
    }
    return resolved;
  }

  private static void scanGroupPartitions(
      Table pinnedTable,
      long snapshotId,
      Expression groupFilter,
      Map<String, FileScanTask> wanted,
      Map<String, FileScanTask> live) {
    try (CloseableIterable<FileScanTask> tasks =
        pinnedTable
            .newScan()
            .useSnapshot(snapshotId)
            .filter(groupFilter)
            // The partition filter leaves a few manifests: reading them on this thread avoids
            // Iceberg's shared pool, whose waiter polls every 10 ms.
            .planWith(new CallingThreadExecutor())
            .ignoreResiduals()
            .planFiles()) {
      for (FileScanTask task : tasks) {
        if (wanted.containsKey(task.file().location())) {
          live.put(task.file().location(), task);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Numbers the group's delete files by location, each file object once: a CDC table's data file
   * carries thousands of delete files, and comparing each task's two lists as sets of path strings
   * cost files x deletes string comparisons (most of a worker's time on a 5,500-file upsert table).
   */
  private static final class DeleteIds {
    private final Map<String, Integer> byLocation = new HashMap<>();
    private final Map<ContentFile<?>, Integer> byFile = new IdentityHashMap<>();

    BitSet of(FileScanTask task) {
      BitSet ids = new BitSet();
      for (ContentFile<?> delete : task.deletes()) {
        ids.set(
            byFile.computeIfAbsent(
                delete,
                file -> byLocation.computeIfAbsent(file.location(), unused -> byLocation.size())));
      }
      return ids;
    }
  }

  private static Set<String> deletePaths(FileScanTask task) {
    return task.deletes().stream()
        .map(ContentFile::location)
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
