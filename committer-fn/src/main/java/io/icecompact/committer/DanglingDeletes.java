package io.icecompact.committer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Decides, from one committed snapshot's manifests, whether a delete file it removed applies to no
 * live data file any more. Iceberg's {@code RewriteFiles} drops such files in the same commit: a
 * deletion vector whose data file the commit removed, and any delete file older than every live
 * data file (a full rewrite raises the lowest data sequence number past older deletes).
 *
 * <p>A position delete applies to data files of the same or a lower data sequence number, an
 * equality delete only to lower ones; one that applies to no live file changes no row.
 */
final class DanglingDeletes {
  private final Table table;
  private final Snapshot snapshot;
  private Set<String> removedDataFiles;
  private Long lowestLiveSequenceNumber;
  private long lowestLiveScannedUpTo = -1;

  DanglingDeletes(Table table, Snapshot snapshot) {
    this.table = table;
    this.snapshot = snapshot;
  }

  /** Null when {@code file} applies to no live data file of the snapshot; otherwise why it may. */
  String whyNotDangling(DeleteFile file) {
    if (ContentFileUtil.isDV(file) && removedDataFiles().contains(file.referencedDataFile())) {
      return null;
    }
    Long sequenceNumber = file.dataSequenceNumber();
    if (sequenceNumber == null) {
      return "its data sequence number is unknown";
    }
    long lowest = lowestLiveSequenceNumber(sequenceNumber);
    boolean applies =
        file.content() == FileContent.EQUALITY_DELETES
            ? lowest < sequenceNumber
            : lowest <= sequenceNumber;
    if (!applies) {
      return null;
    }
    return String.format(
        "its data sequence number %d is not below the lowest live data sequence number %d%s",
        sequenceNumber,
        lowest,
        file.content() == FileContent.EQUALITY_DELETES ? " (equality delete)" : "");
  }

  private Set<String> removedDataFiles() {
    if (removedDataFiles == null) {
      removedDataFiles = new HashSet<>();
      SnapshotChanges.builderFor(table)
          .snapshot(snapshot)
          .build()
          .removedDataFiles()
          .forEach(file -> removedDataFiles.add(file.location()));
    }
    return removedDataFiles;
  }

  /**
   * The lowest data sequence number of the snapshot's live data files, exact when it is at most
   * {@code upTo}; otherwise some value above {@code upTo}. Manifests whose lowest sequence number
   * is above {@code upTo} are not opened: they cannot change the answer for that delete file.
   */
  private long lowestLiveSequenceNumber(long upTo) {
    if (lowestLiveSequenceNumber != null
        && (lowestLiveSequenceNumber <= lowestLiveScannedUpTo || upTo <= lowestLiveScannedUpTo)) {
      return lowestLiveSequenceNumber;
    }
    long lowest = Long.MAX_VALUE;
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      if (!manifest.hasAddedFiles() && !manifest.hasExistingFiles()) {
        continue;
      }
      if (manifest.minSequenceNumber() > upTo) {
        lowest = Math.min(lowest, manifest.minSequenceNumber());
        continue;
      }
      try (CloseableIterable<DataFile> files =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : files) {
          if (file.dataSequenceNumber() != null) {
            lowest = Math.min(lowest, file.dataSequenceNumber());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    lowestLiveSequenceNumber = lowest;
    lowestLiveScannedUpTo = upTo;
    return lowest;
  }
}
