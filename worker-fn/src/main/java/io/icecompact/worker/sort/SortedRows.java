package io.icecompact.worker.sort;

import io.icecompact.core.job.RowOrder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortKey;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SortOrderUtil;

/**
 * A group's live rows, held in memory and handed back in the job's row order. Each row's sort key is
 * computed once when it is added (Iceberg's {@link SortKey}: the sort order's transforms of the row's
 * internal values), so sorting compares keys, not rows.
 *
 * <p>A z-order is sorted as Spark sorts it: by one extra binary column, the row's z-value
 * ({@link ZValues}), ascending. When the group's files are repartitioned into another spec, the output
 * partition's fields come first ({@link SortOrderUtil#buildSortOrder}), as in Spark, so each output
 * partition's rows are contiguous.
 *
 * <p>Memory: every live row of the group at once, as Iceberg generic records (several times their
 * Parquet size). Sorting beyond the heap (runs spilled to local disk, then merged) is not built yet.
 */
public final class SortedRows {
  private final SortKey key;
  private final InternalRecordWrapper internal;
  private final ZValues zValues;
  private final int columns;
  private final Comparator<StructLike> keyOrder;
  private final List<Keyed> rows = new ArrayList<>();

  /** A row with its key and, when known without computing it, its output partition. */
  public record Keyed(StructLike key, Record row, StructLike partition) {}

  /**
   * For rows of {@code rowSchema} (the table's schema, with row lineage columns on v3), ordered by
   * {@code order}; {@code repartitionInto} is the output spec when the group's files are written under
   * another spec, else null.
   */
  public SortedRows(Schema rowSchema, RowOrder order, PartitionSpec repartitionInto) {
    this.internal = new InternalRecordWrapper(rowSchema.asStruct());
    this.columns = rowSchema.columns().size();
    Schema sortSchema;
    SortOrder sortOrder;
    if (order.zOrdered()) {
      this.zValues =
          new ZValues(rowSchema, order.zOrderColumns(), order.zOrderVarLengthBytes(), order.zOrderMaxBytes());
      sortSchema = WithZValue.schema(rowSchema);
      sortOrder = SortOrder.builderFor(sortSchema).asc(WithZValue.NAME, NullOrder.NULLS_LAST).build();
    } else {
      this.zValues = null;
      sortSchema = rowSchema;
      sortOrder = order.linearOrder(rowSchema);
    }
    if (repartitionInto != null) {
      sortOrder = SortOrderUtil.buildSortOrder(sortSchema, repartitionInto, sortOrder);
    }
    this.key = new SortKey(sortSchema, sortOrder);
    this.keyOrder = keyComparator(sortSchema, sortOrder);
  }

  /** Keeps {@code row}; {@code partition} is its output partition, or null to compute it when written. */
  public void add(Record row, StructLike partition) {
    StructLike values = internal.wrap(row);
    key.wrap(zValues == null ? values : new WithZValue(values, ByteBuffer.wrap(zValues.of(values)), columns));
    rows.add(new Keyed(key.copy(), row, partition));
  }

  public int size() {
    return rows.size();
  }

  /** The rows in order; a stable sort, so rows of equal keys stay in input order. */
  public List<Keyed> sorted() {
    rows.sort(Comparator.comparing(Keyed::key, keyOrder));
    return rows;
  }

  /**
   * Compares keys (structs of the transforms' results) field by field with each field's direction and
   * null order: Iceberg's own comparator over a schema of the key's fields with identity transforms.
   */
  private static Comparator<StructLike> keyComparator(Schema sortSchema, SortOrder order) {
    List<Types.NestedField> keyFields = new ArrayList<>();
    List<SortField> fields = order.fields();
    for (int i = 0; i < fields.size(); i++) {
      SortField field = fields.get(i);
      keyFields.add(Types.NestedField.optional(i + 1, "key_" + i,
          field.transform().getResultType(sortSchema.findType(field.sourceId()))));
    }
    Schema keySchema = new Schema(keyFields);
    SortOrder.Builder keyOrder = SortOrder.builderFor(keySchema);
    for (int i = 0; i < fields.size(); i++) {
      SortField field = fields.get(i);
      keyOrder.sortBy("key_" + i, field.direction(), field.nullOrder());
    }
    return SortOrderComparators.forSchema(keySchema, keyOrder.build());
  }
}
