package io.icecompact.worker.sort;

import java.io.Closeable;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;

/** A group's live rows, taken one by one and handed back in the job's row order. */
public interface RowSorter extends Closeable {
  /** Where sorted rows go. */
  interface SortedSink {
    /**
     * {@code partition} is the row's output partition as it was added (null: compute it from the
     * row).
     */
    void accept(Record row, StructLike partition);
  }

  /**
   * Keeps {@code row}; {@code partition} is its output partition, or null to compute it when
   * written.
   */
  void add(Record row, StructLike partition);

  /**
   * Hands every row added to {@code sink} in order, once; rows of equal keys in the order they were
   * added (a stable sort).
   */
  void drainTo(SortedSink sink);

  /** Drops what is left (rows in memory, files on disk); never fails. */
  @Override
  void close();
}
