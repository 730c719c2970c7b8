package io.icecompact.worker.sort;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;

/** A row with its z-value as one more (last) column, so that a {@code SortKey} can read both. */
final class WithZValue implements StructLike {
  static final String NAME = "_icecompact_z_value";

  private final StructLike row;
  private final ByteBuffer zValue;
  private final int zPosition;

  /**
   * {@code zPosition}: the number of the schema's columns (a row read may hold more, e.g. {@code
   * _pos}).
   */
  WithZValue(StructLike row, ByteBuffer zValue, int zPosition) {
    this.row = row;
    this.zValue = zValue;
    this.zPosition = zPosition;
  }

  /** {@code rowSchema} plus the z-value column, under a field id the schema does not use. */
  static Schema schema(Schema rowSchema) {
    List<Types.NestedField> columns = new ArrayList<>(rowSchema.columns());
    columns.add(
        Types.NestedField.required(rowSchema.highestFieldId() + 1, NAME, Types.BinaryType.get()));
    return new Schema(columns);
  }

  @Override
  public int size() {
    return zPosition + 1;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return pos == zPosition ? javaClass.cast(zValue) : row.get(pos, javaClass);
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("A sort key's view of a row is read-only");
  }
}
