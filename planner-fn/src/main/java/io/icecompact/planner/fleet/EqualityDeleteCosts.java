package io.icecompact.planner.fleet;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What each of the two jobs that retire a table's equality deletes would cost and save, estimated
 * from the metadata {@link EqualityDeleteScan} read (the formulas are in docs/fleet.md, "Equality
 * deletes: rewrite or convert"). Estimates, not measurements: requests count one per file read or
 * written (a Parquet reader pays a few more per file for its footer and column chunks), and bytes
 * written are the sizes the metadata suggests, before the writer's encoding.
 *
 * @param equalityDeleteFiles live equality delete files that apply to at least one data file
 * @param equalityKeys their keys: what every reader of those data files joins against today
 * @param dataFiles data files they apply to
 * @param dataBytes those data files' bytes
 * @param dataRows their rows, before deletes
 * @param deleteFiles delete files a job over those data files reads (equality and position)
 * @param deleteBytes their bytes
 * @param keyColumnBytes bytes of the equality fields' columns in those data files: what a
 *     conversion reads of them
 * @param keyColumnBytesSource where {@code keyColumnBytes} comes from: the manifests' {@code
 *     column_sizes}, or whole files where a size is missing
 * @param targetFileSizeBytes the data files' target size the decision compares with
 * @param rewrite rewriting those data files with their deletes applied
 * @param convert converting the equality deletes into position deletes or deletion vectors
 */
public record EqualityDeleteCosts(
    long equalityDeleteFiles,
    long equalityKeys,
    long dataFiles,
    long dataBytes,
    long dataRows,
    long deleteFiles,
    long deleteBytes,
    long keyColumnBytes,
    String keyColumnBytesSource,
    long targetFileSizeBytes,
    ActionCost rewrite,
    ActionCost convert) {

  /**
   * A deleted position costs at most this many bytes in a position delete file or a deletion
   * vector: a 64-bit row position, before encoding (a vector's bitmap and Parquet's delta encoding
   * take less).
   */
  public static final long BYTES_PER_POSITION = 8;

  /**
   * One action's estimate.
   *
   * @param filesRead data and delete files opened
   * @param bytesRead their bytes read: whole files for a rewrite, key columns and delete files for
   *     a conversion
   * @param filesWritten new files
   * @param bytesWrittenEstimate their bytes (see {@link EqualityDeleteCosts})
   * @param requests {@code filesRead + filesWritten}: one GET per file read, one PUT per file
   *     written, a lower bound
   * @param equalityDeleteFilesRetired equality delete files the table no longer lists afterwards
   *     (for a rewrite: once {@code delete-cleanup} has run on v2)
   * @param deleteFilesAdded delete files the job adds
   * @param dataFilesAfter the data files the deletes applied to, afterwards
   */
  public record ActionCost(
      long filesRead,
      long bytesRead,
      long filesWritten,
      long bytesWrittenEstimate,
      long requests,
      long equalityDeleteFilesRetired,
      long deleteFilesAdded,
      long dataFilesAfter) {}

  /** The estimate from {@code scan}, with data files written at {@code targetFileSizeBytes}. */
  public static EqualityDeleteCosts of(EqualityDeleteScan scan, long targetFileSizeBytes) {
    long filesRead = scan.dataFiles() + scan.deleteFiles();
    // a rewrite writes each partition's bytes again, one file per target size, at least one
    long rewriteFiles =
        scan.partitionBytes().stream()
            .mapToLong(bytes -> Math.max(1, ceilDiv(bytes, targetFileSizeBytes)))
            .sum();
    ActionCost rewrite =
        new ActionCost(
            filesRead,
            scan.dataBytes() + scan.deleteBytes(),
            rewriteFiles,
            scan.dataBytes(),
            filesRead + rewriteFiles,
            scan.equalityDeleteFiles(),
            0,
            rewriteFiles);
    // a conversion writes one position delete file (v2) or deletion vector (v3) per data file; an
    // equality key usually deletes one row
    long positions = Math.min(scan.equalityKeys(), scan.dataRows());
    ActionCost convert =
        new ActionCost(
            filesRead,
            scan.keyColumnBytes() + scan.deleteBytes(),
            scan.dataFiles(),
            positions * BYTES_PER_POSITION,
            filesRead + scan.dataFiles(),
            scan.equalityDeleteFiles(),
            scan.dataFiles(),
            scan.dataFiles());
    return new EqualityDeleteCosts(
        scan.equalityDeleteFiles(),
        scan.equalityKeys(),
        scan.dataFiles(),
        scan.dataBytes(),
        scan.dataRows(),
        scan.deleteFiles(),
        scan.deleteBytes(),
        scan.keyColumnBytes(),
        keyColumnBytesSource(scan),
        targetFileSizeBytes,
        rewrite,
        convert);
  }

  /** The mean size of the data files the equality deletes apply to. */
  @JsonProperty("mean_data_file_bytes")
  public long meanDataFileBytes() {
    return dataFiles == 0 ? 0 : dataBytes / dataFiles;
  }

  /** {@link #meanDataFileBytes()} as a fraction of the target size. */
  @JsonProperty("mean_of_target")
  public double meanOfTarget() {
    return targetFileSizeBytes <= 0 ? 0 : (double) meanDataFileBytes() / targetFileSizeBytes;
  }

  static String keyColumnBytesSource(EqualityDeleteScan scan) {
    if (scan.filesWithColumnSizes() == scan.dataFiles()) {
      return "column_sizes";
    }
    if (scan.filesWithColumnSizes() == 0) {
      return "whole files (no column_sizes for the key columns in the manifests)";
    }
    return String.format(
        "column_sizes for %d of %d files, whole files for the rest",
        scan.filesWithColumnSizes(), scan.dataFiles());
  }

  private static long ceilDiv(long a, long b) {
    return b <= 0 ? 1 : (a + b - 1) / b;
  }
}
