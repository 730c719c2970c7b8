package io.icecompact.worker.sort;

import io.icecompact.core.job.RowOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;

/**
 * A group's live rows, held in memory and handed back in the job's row order. Each row's sort key
 * is computed once when it is added ({@link RowKeys}), so sorting compares keys, not rows.
 *
 * <p>Memory: every live row of the group at once, as Iceberg generic records (several times their
 * Parquet size); a group beyond that is sorted by {@link ExternalSortedRows}.
 */
public final class SortedRows implements RowSorter {
  private final RowKeys keys;
  private final List<Keyed> rows = new ArrayList<>();

  /** A row with its key and, when known without computing it, its output partition. */
  public record Keyed(StructLike key, Record row, StructLike partition) {}

  /**
   * For rows of {@code rowSchema} (the table's schema, with row lineage columns on v3), ordered by
   * {@code order}; {@code repartitionInto} is the output spec when the group's files are written
   * under another spec, else null.
   */
  public SortedRows(Schema rowSchema, RowOrder order, PartitionSpec repartitionInto) {
    this(new RowKeys(rowSchema, order, repartitionInto));
  }

  SortedRows(RowKeys keys) {
    this.keys = keys;
  }

  @Override
  public void add(Record row, StructLike partition) {
    rows.add(new Keyed(keys.of(row), row, partition));
  }

  public int size() {
    return rows.size();
  }

  /** The rows in order; a stable sort, so rows of equal keys stay in input order. */
  public List<Keyed> sorted() {
    rows.sort(Comparator.comparing(Keyed::key, keys.order()));
    return rows;
  }

  /** Hands the rows over in order, letting each be collected once handed over. */
  @Override
  public void drainTo(SortedSink sink) {
    List<Keyed> inOrder = sorted();
    for (int i = 0; i < inOrder.size(); i++) {
      Keyed keyed = inOrder.get(i);
      inOrder.set(i, null);
      sink.accept(keyed.row(), keyed.partition());
    }
    inOrder.clear();
  }

  @Override
  public void close() {
    rows.clear();
  }
}
