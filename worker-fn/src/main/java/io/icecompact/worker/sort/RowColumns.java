package io.icecompact.worker.sort;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * A group's rows held column by column, as Iceberg's generic records hold their values but without
 * an object per row: each column of a type that fits a long (booleans, integers, longs, floats,
 * doubles, dates, times, timestamps, decimals of up to 18 digits) is one {@code long[]} and a null
 * bitmap, any other (strings, binaries, wide decimals, nested values...) one {@code Object[]} of
 * the record's own values. A record of the row rebuilt from the columns equals the record added.
 *
 * <p>Memory: 8 bytes a row for a long column (a record holds a boxed value, 16 to 24 bytes, and a
 * timestamp as an {@code OffsetDateTime}, about 100), the reference and the value for the others.
 */
final class RowColumns {
  private final Column[] columns;

  /**
   * For rows of {@code schema}'s columns (a record may hold more after them), room for {@code
   * capacity}.
   */
  RowColumns(Schema schema, int capacity) {
    List<Types.NestedField> fields = schema.columns();
    this.columns = new Column[fields.size()];
    for (int i = 0; i < columns.length; i++) {
      Type type = fields.get(i).type();
      columns[i] =
          LongColumn.encodes(type) ? new LongColumn(type, capacity) : new ObjectColumn(capacity);
    }
  }

  /** Keeps {@code record}'s values as row number {@code row}. */
  void set(int row, Record record) {
    for (int i = 0; i < columns.length; i++) {
      columns[i].set(row, record.get(i, Object.class));
    }
  }

  /** Sets {@code into}'s values to those of row number {@code row}. */
  void get(int row, Record into) {
    for (int i = 0; i < columns.length; i++) {
      into.set(i, columns[i].get(row));
    }
  }

  /** Makes room for rows numbered below {@code capacity}. */
  void grow(int capacity) {
    for (Column column : columns) {
      column.grow(capacity);
    }
  }

  private interface Column {
    void set(int row, Object value);

    Object get(int row);

    void grow(int capacity);
  }

  /** Values kept as longs, in the generic data model's classes when read back. */
  private static final class LongColumn implements Column {
    private final Type.TypeID type;
    private final boolean adjustToUtc;
    private final int scale;
    private final BitSet nulls = new BitSet();
    private long[] values;

    LongColumn(Type type, int capacity) {
      this.type = type.typeId();
      this.adjustToUtc =
          switch (this.type) {
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC();
            case TIMESTAMP_NANO -> ((Types.TimestampNanoType) type).shouldAdjustToUTC();
            default -> false;
          };
      this.scale = type instanceof Types.DecimalType decimal ? decimal.scale() : 0;
      this.values = new long[capacity];
    }

    static boolean encodes(Type type) {
      return switch (type.typeId()) {
        case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP, TIMESTAMP_NANO -> true;
        // an unscaled value of up to 18 digits fits a long
        case DECIMAL -> ((Types.DecimalType) type).precision() <= 18;
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
            case INTEGER -> (Integer) value;
            case LONG -> (Long) value;
            case FLOAT -> Float.floatToRawIntBits((Float) value);
            case DOUBLE -> Double.doubleToRawLongBits((Double) value);
            case DATE -> ((LocalDate) value).toEpochDay();
            case TIME -> ((LocalTime) value).toNanoOfDay();
            case TIMESTAMP ->
                adjustToUtc
                    ? DateTimeUtil.microsFromTimestamptz((OffsetDateTime) value)
                    : DateTimeUtil.microsFromTimestamp((LocalDateTime) value);
            case TIMESTAMP_NANO ->
                adjustToUtc
                    ? DateTimeUtil.nanosFromTimestamptz((OffsetDateTime) value)
                    : DateTimeUtil.nanosFromTimestamp((LocalDateTime) value);
            // records hold decimals at their type's scale (Iceberg's writer refuses any other)
            case DECIMAL -> ((BigDecimal) value).unscaledValue().longValueExact();
            default -> throw new IllegalStateException("Not a long column: " + type);
          };
    }

    @Override
    public Object get(int row) {
      if (nulls.get(row)) {
        return null;
      }
      long value = values[row];
      return switch (type) {
        case BOOLEAN -> value != 0;
        case INTEGER -> (int) value;
        case LONG -> value;
        case FLOAT -> Float.intBitsToFloat((int) value);
        case DOUBLE -> Double.longBitsToDouble(value);
        case DATE -> LocalDate.ofEpochDay(value);
        case TIME -> LocalTime.ofNanoOfDay(value);
        case TIMESTAMP ->
            adjustToUtc ? timestamptz(value) : DateTimeUtil.timestampFromMicros(value);
        case TIMESTAMP_NANO ->
            adjustToUtc
                ? DateTimeUtil.timestamptzFromNanos(value)
                : DateTimeUtil.timestampFromNanos(value);
        case DECIMAL -> BigDecimal.valueOf(value, scale);
        default -> throw new IllegalStateException("Not a long column: " + type);
      };
    }

    /**
     * The UTC date-time of {@code micros}, equal to {@code DateTimeUtil.timestamptzFromMicros}'s,
     * built from its parts: adding the micros to the epoch was among the hottest frames of the
     * bench's profile.
     */
    private static OffsetDateTime timestamptz(long micros) {
      long seconds = Math.floorDiv(micros, 1_000_000L);
      int nanos = (int) Math.floorMod(micros, 1_000_000L) * 1000;
      return OffsetDateTime.of(
          LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC), ZoneOffset.UTC);
    }

    @Override
    public void grow(int capacity) {
      values = Arrays.copyOf(values, capacity);
    }
  }

  /** The record's own values. */
  private static final class ObjectColumn implements Column {
    private Object[] values;

    ObjectColumn(int capacity) {
      this.values = new Object[capacity];
    }

    @Override
    public void set(int row, Object value) {
      values[row] = value;
    }

    @Override
    public Object get(int row) {
      return values[row];
    }

    @Override
    public void grow(int capacity) {
      values = Arrays.copyOf(values, capacity);
    }
  }
}
