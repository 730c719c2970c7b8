package io.icecompact.planner.fleet;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.PartitionSet;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * How much a table needs compaction, from its metadata only: the three numbers and the score of
 * docs/fleet.md that ranks a fleet by them.
 *
 * <p>The score is {@code excess files + delete records per data file / 100 + snapshots since the
 * last compaction}. Its purpose is ranking tables against each other, not measuring one: it is not
 * a cost or a time. Files beyond one per partition (not the small-file ratio against the target
 * size) is the number compaction can change: a partition of a few hundred kilobytes is "small"
 * against a 512 MB target whatever is done to it, and a first draft that used the ratio rated every
 * table of seed 003's lab 100% small. The delete term is scaled down by a hundred as in the
 * measured table of docs/fleet.md ({@code mor2}: 2,000 delete records per data file, score 20;
 * {@code d2r}: 136 per file and 29 excess files, score 30), so that a table whose only problem is
 * deletes ranks with, not above, fragmented ones.
 *
 * @param table the table's identifier
 * @param formatVersion 2 (position and equality delete files) or 3 (deletion vectors)
 * @param snapshotId the current snapshot (null for a table without one: every count is 0)
 * @param dataFiles live data files of the current snapshot
 * @param dataBytes their total size
 * @param records their total record count (before deletes)
 * @param partitions distinct partition tuples of those files, per spec: a partition of an older
 *     spec and one of the current spec are two partitions, as compaction rewrites them separately
 * @param excessFiles data files beyond one per partition
 * @param deleteFiles live delete files (position, equality, deletion vectors)
 * @param deleteRecords their records: positions, equality keys, or a vector's cardinality
 * @param deletesPerDataFile {@code deleteRecords / max(dataFiles, 1)}
 * @param snapshotsSinceCompaction snapshots of the current snapshot's history after the last
 *     compaction (all of them if none, as far as expiry kept them)
 * @param lastCompactionMillis when the last compaction committed, null if none is in the history
 * @param score see above
 * @param equalityDeleteFiles live equality delete files (of {@code deleteFiles})
 * @param equalityDeleteRecords their records: the keys every reader joins against
 * @param targetFileSizeBytes the table's {@code write.target-file-size-bytes} (Iceberg's default
 *     512 MB when unset)
 */
public record TableHealth(
    String table,
    int formatVersion,
    Long snapshotId,
    long dataFiles,
    long dataBytes,
    long records,
    long partitions,
    long excessFiles,
    long deleteFiles,
    long deleteRecords,
    double deletesPerDataFile,
    int snapshotsSinceCompaction,
    Long lastCompactionMillis,
    double score,
    long equalityDeleteFiles,
    long equalityDeleteRecords,
    long targetFileSizeBytes) {

  /** Health without the equality-delete figures (a table without equality deletes). */
  public TableHealth(
      String table,
      int formatVersion,
      Long snapshotId,
      long dataFiles,
      long dataBytes,
      long records,
      long partitions,
      long excessFiles,
      long deleteFiles,
      long deleteRecords,
      double deletesPerDataFile,
      int snapshotsSinceCompaction,
      Long lastCompactionMillis,
      double score) {
    this(
        table,
        formatVersion,
        snapshotId,
        dataFiles,
        dataBytes,
        records,
        partitions,
        excessFiles,
        deleteFiles,
        deleteRecords,
        deletesPerDataFile,
        snapshotsSinceCompaction,
        lastCompactionMillis,
        score,
        0,
        0,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  private static final double BYTES_PER_MB = 1024.0 * 1024;

  /**
   * Equality-delete keys per MB (MiB) of data files: how much a reader joins per byte it reads. Per
   * MB rather than per byte so that the figure reads as a whole number.
   */
  @JsonProperty("equality_keys_per_mb")
  public double equalityKeysPerMb() {
    return dataBytes == 0 ? 0 : equalityDeleteRecords / (dataBytes / BYTES_PER_MB);
  }

  /** The data files' mean size in bytes (0 without data files). */
  @JsonProperty("mean_data_file_bytes")
  public long meanDataFileBytes() {
    return dataFiles == 0 ? 0 : dataBytes / dataFiles;
  }

  /**
   * The measured score (docs/fleet.md) divides delete records per data file by this before adding
   * it to the score.
   */
  public static final double DELETES_PER_FILE_SCALE = 100.0;

  /**
   * Only what counting needs is read from each manifest entry: no column statistics, which are most
   * of a manifest's bytes on a wide table.
   */
  private static final List<String> COUNTED_COLUMNS =
      List.of("content", "file_path", "file_size_in_bytes", "record_count", "partition");

  /** The score of these three numbers, as the measured score (docs/fleet.md) adds them. */
  public static double score(
      long excessFiles, double deletesPerDataFile, int snapshotsSinceCompaction) {
    return excessFiles + deletesPerDataFile / DELETES_PER_FILE_SCALE + snapshotsSinceCompaction;
  }

  /**
   * Reads the current snapshot's manifests and the snapshot log.
   *
   * <p>The manifests are read entry by entry with {@link ManifestFiles} rather than through a table
   * scan ({@code planFiles} matches every delete file to every data file it may apply to, which is
   * the planner's work and quadratic in the worst case) or the {@code FILES} metadata table (which
   * reads the same manifests and builds a row per file, statistics included). The manifest list
   * already holds per-manifest counts, but not the partitions, so the entries are needed.
   */
  public static TableHealth of(String name, Table table) {
    int formatVersion = TableUtil.formatVersion(table);
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new TableHealth(
          name, formatVersion, null, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, 0, 0, 0, target(table));
    }
    FileIO io = table.io();
    Map<Integer, PartitionSpec> specs = table.specs();
    PartitionSet partitions = PartitionSet.create(specs);
    long dataFiles = 0;
    long dataBytes = 0;
    long records = 0;
    for (ManifestFile manifest : current.dataManifests(io)) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, io, specs).select(COUNTED_COLUMNS)) {
        for (DataFile file : reader) {
          dataFiles++;
          dataBytes += file.fileSizeInBytes();
          records += file.recordCount();
          // entries are reused by the reader: the set keeps a copy of the partition tuple
          if (!partitions.contains(file.specId(), file.partition())) {
            partitions.add(file.specId(), file.copyWithoutStats().partition());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long deleteFiles = 0;
    long deleteRecords = 0;
    long equalityFiles = 0;
    long equalityRecords = 0;
    for (ManifestFile manifest : current.deleteManifests(io)) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, io, specs).select(COUNTED_COLUMNS)) {
        for (DeleteFile file : reader) {
          deleteFiles++;
          deleteRecords += file.recordCount();
          if (file.content() == FileContent.EQUALITY_DELETES) {
            equalityFiles++;
            equalityRecords += file.recordCount();
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    int since = 0;
    Long lastCompaction = null;
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (isCompaction(snapshot)) {
        lastCompaction = snapshot.timestampMillis();
        break;
      }
      since++;
    }
    long excess = dataFiles - partitions.size();
    double perFile = (double) deleteRecords / Math.max(dataFiles, 1);
    return new TableHealth(
        name,
        formatVersion,
        current.snapshotId(),
        dataFiles,
        dataBytes,
        records,
        partitions.size(),
        excess,
        deleteFiles,
        deleteRecords,
        perFile,
        since,
        lastCompaction,
        score(excess, perFile, since),
        equalityFiles,
        equalityRecords,
        target(table));
  }

  private static long target(Table table) {
    return PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * A {@code replace} that rewrote data files. {@code replace} is compaction's operation name in
   * the snapshot log (the measured score counts from it), but rewriting manifests and rewriting
   * position delete files commit {@code replace} snapshots too: those are table care, not
   * compaction, and must not make a fragmented table look freshly compacted.
   */
  static boolean isCompaction(Snapshot snapshot) {
    if (!DataOperations.REPLACE.equals(snapshot.operation())) {
      return false;
    }
    Map<String, String> summary = snapshot.summary();
    if (summary == null) {
      return true; // no summary to tell: count it, as the measured score's query would
    }
    return positive(summary.get(SnapshotSummary.DELETED_FILES_PROP))
        || positive(summary.get(SnapshotSummary.ADDED_FILES_PROP));
  }

  private static boolean positive(String count) {
    try {
      return count != null && Long.parseLong(count) > 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
