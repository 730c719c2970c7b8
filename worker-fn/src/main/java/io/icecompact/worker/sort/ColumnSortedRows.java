package io.icecompact.worker.sort;

import io.icecompact.core.job.RowOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * A group's live rows sorted in memory without keeping a record or a key object per row: each row's
 * values go into columns ({@link RowColumns}) and its sort key into key columns ({@link
 * KeyColumns}) as it is added, the row numbers are sorted by their keys ({@link StableIndexSort}),
 * and the rows are handed back in that order, rebuilt one at a time into a single record.
 *
 * <p>The keys are {@link RowKeys}', compared field by field as {@link SortedRows} compares them,
 * and the sort is stable, so the row sequence is {@link SortedRows}' exactly. It takes every type
 * {@link SortedRows} takes (values it cannot hold as longs stay objects); what it does not do is
 * sort beyond memory: a group that does not fit is sorted by {@link ExternalSortedRows}, as before.
 *
 * <p>The record handed to the sink is reused: it is valid during the call only (the writer encodes
 * it at once).
 */
public final class ColumnSortedRows implements RowSorter {
  private final RowKeys keys;
  private final Schema rowSchema;
  private final Map<StructLike, Integer> partitionNumbers = new IdentityHashMap<>();
  private final List<StructLike> partitions = new ArrayList<>();
  private RowColumns rows;
  private KeyColumns keyColumns;
  private int[] partitionOfRow;
  private int capacity;
  private int size;

  /**
   * For rows of {@code rowSchema} ordered by {@code order} ({@code repartitionInto} as in {@link
   * SortedRows}), with room for {@code expectedRows} to begin with (the group's row count: the
   * arrays then never grow).
   */
  public ColumnSortedRows(
      Schema rowSchema, RowOrder order, PartitionSpec repartitionInto, int expectedRows) {
    this.keys = new RowKeys(rowSchema, order, repartitionInto);
    this.rowSchema = rowSchema;
    this.capacity = Math.max(16, expectedRows);
    this.rows = new RowColumns(rowSchema, capacity);
    this.keyColumns = new KeyColumns(keys, capacity);
    this.partitionOfRow = new int[capacity];
  }

  @Override
  public void add(Record row, StructLike partition) {
    if (size == capacity) {
      grow();
    }
    keyColumns.set(size, keys.view(row));
    rows.set(size, row);
    partitionOfRow[size] = partitionNumber(partition);
    size++;
  }

  private void grow() {
    if (capacity == Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(
          "A group of more than " + capacity + " rows cannot be sorted in memory");
    }
    capacity = (int) Math.min(Integer.MAX_VALUE - 8, capacity + (long) (capacity >> 1) + 1);
    rows.grow(capacity);
    keyColumns.grow(capacity);
    partitionOfRow = Arrays.copyOf(partitionOfRow, capacity);
  }

  private int partitionNumber(StructLike partition) {
    if (partition == null) {
      return -1;
    }
    return partitionNumbers.computeIfAbsent(
        partition,
        p -> {
          partitions.add(p);
          return partitions.size() - 1;
        });
  }

  public int size() {
    return size;
  }

  @Override
  public void drainTo(SortedSink sink) {
    int[] order = StableIndexSort.sorted(size, keyColumns::compare);
    keyColumns = null; // the keys are no longer needed while the rows are written
    Record row = GenericRecord.create(rowSchema);
    for (int number : order) {
      rows.get(number, row);
      int partition = partitionOfRow[number];
      sink.accept(row, partition < 0 ? null : partitions.get(partition));
    }
    close();
  }

  @Override
  public void close() {
    rows = null;
    keyColumns = null;
    partitionOfRow = null;
  }
}
