package io.icecompact.committer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

/**
 * Delete files committed after the pinned snapshot that Iceberg's {@code RewriteFiles} would drop
 * while they still apply to the job's outputs.
 *
 * <p>A commit that keeps the pinned sequence number ({@code use-starting-sequence-number}) adds its
 * outputs at that older number, so a delete committed meanwhile (an equality delete of a CDC feed)
 * still applies to them. But {@code MergingSnapshotProducer.apply} drops every delete file older
 * than the lowest data sequence number of the data manifests it keeps, and leaves the manifests it
 * adds out of that minimum (Iceberg 1.12). When every data file at or below such a delete's number
 * is replaced by the commit (say, a full rewrite while another writer deletes and then appends),
 * the delete is dropped and its rows come back. Found by the soak ({@code
 * EngineSoakRegressionTest}).
 *
 * <p>Checked before every commit attempt, on the metadata the attempt replaces (a delete may land
 * between two of Iceberg's retries). Manifests never change, so what each one holds is read once
 * per commit: an attempt reads only the manifests committed since the previous one.
 */
final class LateDeletes {
  private final FileIO io;
  private final long pinnedSequenceNumber;
  private final Set<String> replaced;

  /** Delete manifest path to its live equality deletes above the pinned number. */
  private final Map<String, List<DeleteFile>> lateByManifest = new HashMap<>();

  /**
   * Data manifest path to the lowest data sequence number of its live files that are not replaced.
   */
  private final Map<String, Long> lowestKeptByManifest = new HashMap<>();

  LateDeletes(FileIO io, long pinnedSequenceNumber, Set<String> replaced) {
    this.io = io;
    this.pinnedSequenceNumber = pinnedSequenceNumber;
    this.replaced = replaced;
  }

  /**
   * Why committing on {@code base} with the pinned sequence number would drop a delete committed
   * after it, or empty when none would be: a live equality delete above {@code
   * pinnedSequenceNumber} and below the table's last number with no live data file at or below its
   * number left once {@code replaced} are gone. Position deletes committed meanwhile either name a
   * replaced file (Iceberg's validation refuses the commit: a conflict) or a kept one no newer than
   * themselves (so they are kept). Conservative: live entries are read, not the manifests' lowest
   * numbers.
   */
  Optional<String> wouldBeDropped(TableMetadata base) {
    Snapshot current = base.currentSnapshot();
    if (current == null || current.sequenceNumber() <= pinnedSequenceNumber) {
      return Optional.empty();
    }
    List<DeleteFile> late = new ArrayList<>();
    for (ManifestFile manifest : current.deleteManifests(io)) {
      late.addAll(lateByManifest.computeIfAbsent(manifest.path(), path -> lateIn(manifest, base)));
    }
    if (late.isEmpty()) {
      return Optional.empty();
    }
    long highestLate = late.stream().mapToLong(DeleteFile::dataSequenceNumber).max().orElseThrow();
    // as Iceberg: the lowest number of the data it keeps, and never above the table's last one
    long lowestKept = current.sequenceNumber();
    for (ManifestFile manifest : current.dataManifests(io)) {
      if (manifest.minSequenceNumber() > highestLate) {
        continue; // every file in it is newer than every late delete: it cannot keep one
      }
      lowestKept =
          Math.min(
              lowestKept,
              lowestKeptByManifest.computeIfAbsent(
                  manifest.path(), path -> lowestKeptIn(manifest, base)));
    }
    for (DeleteFile delete : late) {
      if (delete.dataSequenceNumber() < lowestKept) {
        return Optional.of(
            String.format(
                "the delete file %s (sequence number %d), committed after the pinned snapshot (sequence number"
                    + " %d), would be dropped by Iceberg's RewriteFiles while it applies to this job's outputs;"
                    + " run the job again",
                delete.location(), delete.dataSequenceNumber(), pinnedSequenceNumber));
      }
    }
    return Optional.empty();
  }

  private List<DeleteFile> lateIn(ManifestFile manifest, TableMetadata base) {
    List<DeleteFile> late = new ArrayList<>();
    try (ManifestReader<DeleteFile> deletes =
        ManifestFiles.readDeleteManifest(manifest, io, base.specsById())) {
      for (DeleteFile delete : deletes) {
        if (delete.content() == FileContent.EQUALITY_DELETES
            && delete.dataSequenceNumber() != null
            && delete.dataSequenceNumber() > pinnedSequenceNumber) {
          late.add(delete.copyWithoutStats());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return late;
  }

  private long lowestKeptIn(ManifestFile manifest, TableMetadata base) {
    long lowest = Long.MAX_VALUE;
    try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, io, base.specsById())) {
      for (DataFile file : files) {
        if (!replaced.contains(file.location()) && file.dataSequenceNumber() != null) {
          lowest = Math.min(lowest, file.dataSequenceNumber());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lowest;
  }
}
