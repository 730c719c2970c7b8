package io.icecompact.worker.sort;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;

/**
 * The sort keys of a group's rows, one array per key field, so that two rows compare by their row
 * numbers without a key object per row: numeric keys (integers, longs, dates, times, timestamps,
 * booleans, floats, doubles) as longs, z-values as fixed-width slices of one byte array, any other
 * key (strings, decimals, binaries...) as the transform's value, compared with Iceberg's comparator
 * of its type.
 *
 * <p>Each field compares as Iceberg's {@code SortOrderComparators} compares it ({@link
 * RowKeys#order}): the type's natural order, reversed when descending, nulls before or after every
 * value; floats and doubles as their {@code compareTo} orders them ({@code -0.0} before {@code
 * 0.0}, NaN last).
 */
final class KeyColumns {
  private final KeyColumn[] columns;

  /** For the keys of {@code keys}, room for {@code capacity} rows to begin with. */
  KeyColumns(RowKeys keys, int capacity) {
    List<SortField> fields = keys.fields();
    this.columns = new KeyColumn[fields.size()];
    for (int i = 0; i < columns.length; i++) {
      SortField field = fields.get(i);
      Type type = keys.types().get(i);
      columns[i] =
          i == keys.zValuePosition()
              ? new ZValueColumn(keys.zValueBytes(), capacity)
              : LongColumn.encodes(type)
                  ? new LongColumn(type.typeId(), field, capacity)
                  : new ObjectColumn(type, field, capacity);
    }
  }

  /** Keeps the key of row number {@code row} (rows are numbered 0, 1, 2... as added). */
  void set(int row, StructLike key) {
    for (int i = 0; i < columns.length; i++) {
      columns[i].set(row, key.get(i, Object.class));
    }
  }

  /** Makes room for rows numbered below {@code capacity}. */
  void grow(int capacity) {
    for (KeyColumn column : columns) {
      column.grow(capacity);
    }
  }

  /** Compares the keys of rows {@code a} and {@code b}. */
  int compare(int a, int b) {
    for (KeyColumn column : columns) {
      int order = column.compare(a, b);
      if (order != 0) {
        return order;
      }
    }
    return 0;
  }

  private interface KeyColumn {
    void set(int row, Object value);

    void grow(int capacity);

    int compare(int a, int b);
  }

  /**
   * Keys whose order is that of a long: integers, dates, times, timestamps, booleans, floats,
   * doubles.
   */
  private static final class LongColumn implements KeyColumn {
    private final Type.TypeID type;
    private final boolean descending;
    private final int nullOrder; // the order of a null against a value: -1 first, 1 last
    private final BitSet nulls = new BitSet();
    private long[] values;

    LongColumn(Type.TypeID type, SortField field, int capacity) {
      this.type = type;
      this.descending = field.direction() == SortDirection.DESC;
      this.nullOrder = field.nullOrder() == NullOrder.NULLS_FIRST ? -1 : 1;
      this.values = new long[capacity];
    }

    static boolean encodes(Type type) {
      return switch (type.typeId()) {
        case BOOLEAN, INTEGER, LONG, DATE, TIME, TIMESTAMP, TIMESTAMP_NANO, FLOAT, DOUBLE -> true;
        default -> false;
      };
    }

    @Override
    public void set(int row, Object value) {
      if (value == null) {
        nulls.set(row);
        return;
      }
      values[row] =
          switch (type) {
            case BOOLEAN -> (Boolean) value ? 1 : 0;
            case INTEGER, DATE -> (Integer) value;
            case FLOAT -> {
              // Float.compare's order as a signed int's: negative values' magnitude bits reversed
              int bits = Float.floatToIntBits((Float) value);
              yield bits ^ ((bits >> 31) & Integer.MAX_VALUE);
            }
            case DOUBLE -> {
              long bits = Double.doubleToLongBits((Double) value);
              yield bits ^ ((bits >> 63) & Long.MAX_VALUE);
            }
            default ->
                (Long) value; // LONG, TIME, TIMESTAMP, TIMESTAMP_NANO: internal values are longs
          };
    }

    @Override
    public void grow(int capacity) {
      values = Arrays.copyOf(values, capacity);
    }

    @Override
    public int compare(int a, int b) {
      boolean nullA = nulls.get(a);
      boolean nullB = nulls.get(b);
      if (nullA || nullB) {
        return nullA == nullB ? 0 : nullA ? nullOrder : -nullOrder;
      }
      int order = Long.compare(values[a], values[b]);
      return descending ? -order : order;
    }
  }

  /** Z-values: all of one width, ascending by their unsigned bytes, never null. */
  private static final class ZValueColumn implements KeyColumn {
    private final int width;
    private byte[] bytes;

    ZValueColumn(int width, int capacity) {
      this.width = width;
      this.bytes = new byte[Math.multiplyExact(width, capacity)];
    }

    @Override
    public void set(int row, Object value) {
      ByteBuffer zValue = ((ByteBuffer) value).duplicate();
      if (zValue.remaining() != width) {
        throw new IllegalStateException(
            "A z-value of " + zValue.remaining() + " bytes, expected " + width);
      }
      zValue.get(bytes, row * width, width);
    }

    @Override
    public void grow(int capacity) {
      bytes = Arrays.copyOf(bytes, Math.multiplyExact(width, capacity));
    }

    @Override
    public int compare(int a, int b) {
      int fromA = a * width;
      int fromB = b * width;
      return Arrays.compareUnsigned(bytes, fromA, fromA + width, bytes, fromB, fromB + width);
    }
  }

  /**
   * Any other key: the transform's values, compared as Iceberg's sort order comparator compares
   * them.
   */
  private static final class ObjectColumn implements KeyColumn {
    private final Comparator<Object> order;
    private Object[] values;

    ObjectColumn(Type type, SortField field, int capacity) {
      Comparator<Object> natural = Comparators.forType(type.asPrimitiveType());
      Comparator<Object> directed =
          field.direction() == SortDirection.DESC ? natural.reversed() : natural;
      this.order =
          field.nullOrder() == NullOrder.NULLS_FIRST
              ? Comparators.<Object>nullsFirst().thenComparing(directed)
              : Comparators.<Object>nullsLast().thenComparing(directed);
      this.values = new Object[capacity];
    }

    @Override
    public void set(int row, Object value) {
      values[row] = value;
    }

    @Override
    public void grow(int capacity) {
      values = Arrays.copyOf(values, capacity);
    }

    @Override
    public int compare(int a, int b) {
      return order.compare(values[a], values[b]);
    }
  }
}
