package io.icecompact.care;

import io.icecompact.core.policy.CareStep;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * Expires snapshots with Iceberg core's {@code ExpireSnapshots} and the retention the table's own
 * properties set, as Iceberg defines them: {@code history.expire.max-snapshot-age-ms} (default 5
 * days), {@code history.expire.min-snapshots-to-keep} (default 1) and each branch's or tag's own
 * retention. Nothing here overrides them, so a table keeps what its owner configured. Iceberg then
 * deletes the files only expired snapshots reached (its reachability cleanup); it refuses on a table
 * with {@code gc.enabled=false}.
 *
 * <p>The report is read back: expired snapshots are those the refreshed metadata no longer lists, and
 * a deleted file counts only when storage no longer has it and no remaining snapshot reaches it.
 */
public final class ExpireSnapshotsStep implements TableCareStep<ExpireSnapshotsStep.Report> {
  public static final String NAME = CareStep.EXPIRE_SNAPSHOTS.propertyName();


  /**
   * @param snapshotsBefore snapshots listed before
   * @param snapshotsAfter snapshots listed after (re-read)
   * @param expiredSnapshotIds snapshots no longer listed (at most {@link RemovedFiles#SAMPLE})
   * @param filesDeleted files Iceberg's cleanup deleted that storage confirms are gone (bytes unknown: 0)
   * @param problems a file Iceberg deleted that still exists or that a remaining snapshot still reaches
   */
  public record Report(
      int snapshotsBefore, int snapshotsAfter, int snapshotsExpired, List<Long> expiredSnapshotIds,
      RemovedFiles filesDeleted, List<String> problems) implements CareReport {
    @Override
    public String summary() {
      return String.format("expired %d of %d snapshots, %d files deleted", snapshotsExpired, snapshotsBefore,
          filesDeleted.count());
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Report run(Table table) {
    table.refresh();
    Set<Long> before = snapshotIds(table);
    Queue<String> deleted = new ConcurrentLinkedQueue<>();
    table.expireSnapshots()
        .cleanExpiredFiles(true)
        .deleteWith(location -> {
          deleted.add(location);
          table.io().deleteFile(location);
        })
        .commit();
    table.refresh();
    Set<Long> after = snapshotIds(table);
    List<Long> expired = before.stream().filter(id -> !after.contains(id)).sorted().toList();

    List<String> problems = new ArrayList<>();
    ReachableFiles reachable = ReachableFiles.of(table);
    List<String> gone = new ArrayList<>();
    for (String location : deleted) {
      if (reachable.contains(location)) {
        problems.add("Iceberg deleted " + location + ", which a remaining snapshot reaches");
      }
      if (exists(table, location)) {
        problems.add("Iceberg deleted " + location + " but it still exists");
      } else {
        gone.add(location);
      }
    }
    return new Report(
        before.size(), after.size(), expired.size(),
        expired.subList(0, Math.min(RemovedFiles.SAMPLE, expired.size())),
        RemovedFiles.of(gone, 0), problems);
  }

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      ids.add(snapshot.snapshotId());
    }
    return ids;
  }

  static boolean exists(Table table, String location) {
    try {
      return table.io().newInputFile(location).exists();
    } catch (NotFoundException e) {
      return false;
    }
  }
}
