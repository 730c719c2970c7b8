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
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SortOrderUtil;

/**
 * The sort key of a row in the job's row order, and the order of keys: shared by the in-memory sort
 * ({@link SortedRows}) and the external one ({@link ExternalSortedRows}), so both order rows alike.
 *
 * <p>A key is Iceberg's {@link SortKey}: the sort order's transforms of the row's internal values.
 * A z-order is sorted as Spark sorts it: by one extra binary column, the row's z-value ({@link
 * ZValues}), ascending. When the group's files are repartitioned into another spec, the output
 * partition's fields come first ({@link SortOrderUtil#buildSortOrder}), as in Spark, so each output
 * partition's rows are contiguous.
 *
 * <p>Not thread-safe: one instance per sorting thread.
 */
final class RowKeys {
  private final SortKey key;
  private final InternalRecordWrapper internal;
  private final ZValues zValues;
  private final int columns;
  private final Comparator<StructLike> keyOrder;
  private final List<SortField> keyFields;
  private final List<Type> keyTypes;
  private final int zValuePosition;

  /**
   * For rows of {@code rowSchema} (the table's schema, with row lineage columns on v3; a row may
   * hold more columns after these), ordered by {@code order}; {@code repartitionInto} is the output
   * spec when the group's files are written under another spec, else null.
   */
  RowKeys(Schema rowSchema, RowOrder order, PartitionSpec repartitionInto) {
    this.internal = new InternalRecordWrapper(rowSchema.asStruct());
    this.columns = rowSchema.columns().size();
    Schema sortSchema;
    SortOrder sortOrder;
    if (order.zOrdered()) {
      this.zValues =
          new ZValues(
              rowSchema,
              order.zOrderColumns(),
              order.zOrderVarLengthBytes(),
              order.zOrderMaxBytes());
      sortSchema = WithZValue.schema(rowSchema);
      sortOrder =
          SortOrder.builderFor(sortSchema).asc(WithZValue.NAME, NullOrder.NULLS_LAST).build();
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
    this.keyFields = sortOrder.fields();
    this.keyTypes =
        keyFields.stream()
            .map(field -> field.transform().getResultType(sortSchema.findType(field.sourceId())))
            .toList();
    int zPosition = -1;
    if (zValues != null) {
      int zFieldId = sortSchema.findField(WithZValue.NAME).fieldId();
      for (int i = 0; i < keyFields.size(); i++) {
        if (keyFields.get(i).sourceId() == zFieldId) {
          zPosition = i;
        }
      }
    }
    this.zValuePosition = zPosition;
  }

  /** The key of {@code row}, a new value the row's later changes do not affect. */
  StructLike of(Record row) {
    return view(row).copy();
  }

  /**
   * The key of {@code row}, valid until the next call: for callers that copy its values out at
   * once.
   */
  SortKey view(Record row) {
    StructLike values = internal.wrap(row);
    key.wrap(
        zValues == null
            ? values
            : new WithZValue(values, ByteBuffer.wrap(zValues.of(values)), columns));
    return key;
  }

  /** The key's fields, in order: each one's direction and null order. */
  List<SortField> fields() {
    return keyFields;
  }

  /** The type of each key field's values (its transform's result type). */
  List<Type> types() {
    return keyTypes;
  }

  /** The position of the z-value among the key's fields, or -1 for a linear order. */
  int zValuePosition() {
    return zValuePosition;
  }

  /** The bytes of every z-value (0 for a linear order). */
  int zValueBytes() {
    return zValues == null ? 0 : zValues.size();
  }

  /** The order of keys. */
  Comparator<StructLike> order() {
    return keyOrder;
  }

  /**
   * Compares keys (structs of the transforms' results) field by field with each field's direction
   * and null order: Iceberg's own comparator over a schema of the key's fields with identity
   * transforms.
   */
  private static Comparator<StructLike> keyComparator(Schema sortSchema, SortOrder order) {
    List<Types.NestedField> keyFields = new ArrayList<>();
    List<SortField> fields = order.fields();
    for (int i = 0; i < fields.size(); i++) {
      SortField field = fields.get(i);
      keyFields.add(
          Types.NestedField.optional(
              i + 1,
              "key_" + i,
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
