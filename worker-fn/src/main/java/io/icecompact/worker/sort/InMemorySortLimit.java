package io.icecompact.worker.sort;

import io.icecompact.core.job.PlannedGroup;

/**
 * The largest group a worker sorts in memory, judged before reading it: {@link SortedRows} holds
 * every live row as an Iceberg generic record, and a group that does not fit would end the worker
 * with an {@code OutOfMemoryError} (a Lambda invocation dies, and is retried to die again). A
 * larger group is sorted in runs of this size spilled to disk ({@link ExternalSortedRows}, {@link
 * SpillLimit}).
 *
 * <p>Measured on the demo table (zstd Parquet, six columns): a linear sort held 16 bytes of heap
 * per Parquet byte, a z-order 19 (480 and 567 bytes per row). Rows are allowed half the heap, the
 * other half is left to the Parquet writer's row group and the reader. The same limit holds for
 * {@link ColumnSortedRows}, which keeps fewer bytes a row (no object per row or per numeric value):
 * not measured, so not counted on.
 */
public final class InMemorySortLimit {
  /** Heap bytes per Parquet byte of input, the measured 16 to 19 rounded up. */
  static final int HEAP_PER_PARQUET_BYTE = 20;

  private InMemorySortLimit() {}

  /** The most Parquet bytes a group may hold to be sorted in a heap of {@code maxHeap} bytes. */
  public static long forHeap(long maxHeap) {
    return maxHeap / 2 / HEAP_PER_PARQUET_BYTE;
  }

  /** Whether {@code group} can be sorted in a heap of {@code maxHeap} bytes. */
  public static boolean fits(PlannedGroup group, long maxHeap) {
    return group.inputBytes() <= forHeap(maxHeap);
  }
}
