package io.icecompact.worker.sort;

import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.job.PlannedGroup;
import java.io.File;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How a group too large to sort in memory is sorted externally ({@link ExternalSortedRows}): how
 * many rows each sorted run holds in memory, and whether the spill directory has room for every
 * run, judged before reading (a full /tmp would fail the group at the end of its reading instead).
 */
public final class SpillLimit {
  /**
   * Bytes of sorted runs (zstd Avro) per Parquet byte of input: measured 1.33 (linear) to 1.37
   * (z-order) on the demo table (v3, 6 columns and row lineage; EngineSortTest), rounded up, since
   * rows compress less well than columns and larger Parquet files compress better than those.
   */
  static final int SPILL_PER_PARQUET_BYTE = 2;

  /** Left free for the output's upload buffers (S3FileIO stages parts in /tmp). */
  static final long RESERVED_BYTES = 256L << 20;

  private SpillLimit() {}

  /**
   * Rows per sorted run: as many as the in-memory sort holds in {@code maxHeap} ({@link
   * InMemorySortLimit}), counted from the group's Parquet bytes per row.
   */
  public static long runRows(PlannedGroup group, long maxHeap) {
    long runBytes = InMemorySortLimit.forHeap(maxHeap);
    if (group.inputBytes() <= 0 || group.inputRows() <= 0) {
      return Math.max(1, runBytes);
    }
    double bytesPerRow = (double) group.inputBytes() / group.inputRows();
    return Math.max(1, (long) (runBytes / bytesPerRow));
  }

  /** The most Parquet bytes a group may hold for its runs to fit in {@code usableBytes} of disk. */
  public static long forDisk(long usableBytes) {
    return Math.max(0, usableBytes - RESERVED_BYTES) / SPILL_PER_PARQUET_BYTE;
  }

  /**
   * The bytes free for this JVM on the disk of {@code directory} (or of its nearest existing
   * parent).
   */
  public static long usableSpace(Path directory) {
    File existing = directory.toAbsolutePath().toFile();
    while (existing != null && !existing.exists()) {
      existing = existing.getParentFile(); // the directory is created when the first sort spills
    }
    return existing == null ? 0 : existing.getUsableSpace();
  }

  /**
   * Refuses (never retried: a retry gets the same disk) a group whose runs exceed {@code
   * usableBytes}.
   */
  public static void check(PlannedGroup group, Path directory, long usableBytes) {
    if (!fits(group, usableBytes)) {
      long limit = forDisk(usableBytes);
      throw new GroupRewriteException(
          String.format(
              Locale.ROOT,
              "Group %d holds %,d bytes of Parquet, too many to sort beyond memory in %s: its sorted runs take"
                  + " about %,d bytes (%d times its Parquet size) and %,d bytes are free, %,d of them kept for"
                  + " the output's upload buffers: set max-file-group-size-bytes to at most %d, or give the"
                  + " worker more ephemeral storage",
              group.index(),
              group.inputBytes(),
              directory,
              group.inputBytes() * SPILL_PER_PARQUET_BYTE,
              SPILL_PER_PARQUET_BYTE,
              usableBytes,
              RESERVED_BYTES,
              limit));
    }
  }

  public static boolean fits(PlannedGroup group, long usableBytes) {
    return group.inputBytes() <= forDisk(usableBytes);
  }
}
