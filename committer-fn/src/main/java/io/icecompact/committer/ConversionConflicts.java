package io.icecompact.committer;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * What a convert commit must refuse that Iceberg's {@code RewriteFiles} does not check, since it
 * replaces delete files only: a snapshot committed after the pinned one that
 *
 * <ul>
 *   <li>removed a converted data file (a concurrent compaction): its rows live on in a new file the
 *       job never read, which an equality delete the job retires would still have to delete (a
 *       rewrite that kept the old sequence number leaves those deletes applying to it); or
 *   <li>on v3, added a deletion vector for a converted data file: a second DV for one file makes
 *       the table unreadable, and the job's DV does not hold the new positions.
 * </ul>
 *
 * Run before each commit attempt's swap on the exact metadata it replaces ({@link
 * WatchedOperations.BeforeSwap}); reads each new snapshot's manifests once across attempts.
 */
final class ConversionConflicts {
  /** A refusal naming each converted data file a concurrent commit changed. */
  static final class Refused extends ValidationException {
    private final Map<String, String> dataFiles;

    Refused(Map<String, String> dataFiles) {
      super(
          "%d converted data file(s) changed by concurrent commits, first: %s",
          dataFiles.size(), dataFiles.values().iterator().next());
      this.dataFiles = Map.copyOf(dataFiles);
    }

    /** Data file location to what changed it. */
    Map<String, String> dataFiles() {
      return dataFiles;
    }
  }

  private final FileIO io;
  private final long pinnedSnapshotId;
  private final Set<String> converted;
  private final Set<Long> checked = new HashSet<>();
  private final Map<String, String> found = new LinkedHashMap<>();

  ConversionConflicts(FileIO io, long pinnedSnapshotId, Set<String> convertedDataFiles) {
    this.io = io;
    this.pinnedSnapshotId = pinnedSnapshotId;
    this.converted = Set.copyOf(convertedDataFiles);
  }

  /** Refuses {@code base} when a snapshot after the pinned one changed a converted data file. */
  void check(TableMetadata base) {
    Snapshot current = base.currentSnapshot();
    check(current == null ? null : current.snapshotId(), base::snapshot);
  }

  /**
   * Refuses when a snapshot after the pinned one, up to {@code currentId} (found by {@code
   * lookup}), changed a converted data file.
   */
  void check(Long currentId, Function<Long, Snapshot> lookup) {
    if (currentId != null) {
      for (Snapshot snapshot : SnapshotUtil.ancestorsOf(currentId, lookup)) {
        if (snapshot.snapshotId() == pinnedSnapshotId || !checked.add(snapshot.snapshotId())) {
          break;
        }
        inspect(snapshot);
      }
    }
    if (!found.isEmpty()) {
      throw new Refused(found);
    }
  }

  private void inspect(Snapshot snapshot) {
    for (DataFile removed : snapshot.removedDataFiles(io)) {
      if (converted.contains(removed.location())) {
        found.putIfAbsent(
            removed.location(),
            String.format(
                "data file %s was removed by snapshot %d (%s) after the job's pinned snapshot",
                removed.location(), snapshot.snapshotId(), snapshot.operation()));
      }
    }
    for (DeleteFile added : snapshot.addedDeleteFiles(io)) {
      if (ContentFileUtil.isDV(added)
          && converted.contains(ContentFileUtil.referencedDataFileLocation(added))) {
        String dataFile = ContentFileUtil.referencedDataFileLocation(added);
        found.putIfAbsent(
            dataFile,
            String.format(
                "a deletion vector for data file %s was added by snapshot %d (%s) after the job's"
                    + " pinned snapshot",
                dataFile, snapshot.snapshotId(), snapshot.operation()));
      }
    }
  }
}
