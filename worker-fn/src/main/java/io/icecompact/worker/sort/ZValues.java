package io.icecompact.worker.sort;

import java.nio.ByteBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.ZOrderByteUtils;

/**
 * The z-value of a row, as Spark's z-order computes it ({@code SparkZOrderUDF}): each column's
 * value as {@link ZOrderByteUtils#PRIMITIVE_BUFFER_SIZE} order-preserving bytes (strings and
 * binaries truncated or zero-filled to {@code var-length-contribution} bytes, nulls all zeros),
 * then the columns' bits interleaved, at most {@code max-output-size} bytes of them. Rows sorted by
 * these bytes (unsigned) are ordered along a z-curve, so each output file covers a small box of the
 * columns.
 *
 * <p>Values are Iceberg's internal ones ({@code InternalRecordWrapper}), dates as days. Timestamps
 * count seconds, as Spark's cast to long does: the bits interleave by position, and microseconds
 * would give a timestamp 20 more varying bits than its seconds, so the curve would follow time
 * alone down to the second before any other column (measured by {@code bench --skipping}).
 */
final class ZValues {
  private static final int BYTES = ZOrderByteUtils.PRIMITIVE_BUFFER_SIZE;

  private final int[] positions;
  private final Type.TypeID[] types;
  private final int varLengthBytes;
  private final int size;
  private final CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder();

  /**
   * For {@code columns} (top-level names of {@code schema}) of a row of {@code schema}; strings and
   * binaries give {@code varLengthBytes} each, the z-value at most {@code maxBytes}.
   */
  ZValues(Schema schema, List<String> columns, int varLengthBytes, int maxBytes) {
    this.varLengthBytes = varLengthBytes;
    this.positions = new int[columns.size()];
    this.types = new Type.TypeID[columns.size()];
    List<Types.NestedField> fields = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField field = schema.findField(columns.get(i));
      if (field == null || !fields.contains(field)) {
        throw new IllegalArgumentException(
            "z-order column " + columns.get(i) + " is not a top-level column");
      }
      positions[i] = fields.indexOf(field);
      types[i] = field.type().typeId();
    }
    long total = 0;
    for (Type.TypeID type : types) {
      total += variableLength(type) ? varLengthBytes : BYTES;
    }
    this.size = (int) Math.min(total, maxBytes);
  }

  private static boolean variableLength(Type.TypeID type) {
    return type == Type.TypeID.STRING || type == Type.TypeID.BINARY;
  }

  /** The bytes of every z-value. */
  int size() {
    return size;
  }

  /** The interleaved bytes of {@code row} (internal values); a new array each time. */
  byte[] of(StructLike row) {
    byte[][] columns = new byte[positions.length][];
    for (int i = 0; i < positions.length; i++) {
      columns[i] = bytes(types[i], row.get(positions[i], Object.class));
    }
    return ZOrderByteUtils.interleaveBits(columns, size, ByteBuffer.allocate(size));
  }

  private byte[] bytes(Type.TypeID type, Object value) {
    ByteBuffer buffer = ByteBuffer.allocate(variableLength(type) ? varLengthBytes : BYTES);
    if (value == null) {
      return buffer.array(); // zeros, as Spark's PRIMITIVE_EMPTY
    }
    return switch (type) {
      case BOOLEAN ->
          buffer.put(0, (byte) ((Boolean) value ? -127 : 0)).array(); // Spark's encoding
      case INTEGER -> ZOrderByteUtils.intToOrderedBytes((Integer) value, buffer).array();
      case DATE -> ZOrderByteUtils.longToOrderedBytes((Integer) value, buffer).array();
      case LONG -> ZOrderByteUtils.longToOrderedBytes((Long) value, buffer).array();
      case TIMESTAMP ->
          ZOrderByteUtils.longToOrderedBytes(Math.floorDiv((Long) value, 1_000_000L), buffer)
              .array();
      case FLOAT -> ZOrderByteUtils.floatToOrderedBytes((Float) value, buffer).array();
      case DOUBLE -> ZOrderByteUtils.doubleToOrderedBytes((Double) value, buffer).array();
      case STRING ->
          ZOrderByteUtils.stringToOrderedBytes(value.toString(), varLengthBytes, buffer, encoder)
              .array();
      case BINARY ->
          ZOrderByteUtils.byteTruncateOrFill(
                  ByteBuffers.toByteArray((ByteBuffer) value), varLengthBytes, buffer)
              .array();
      default -> throw new IllegalArgumentException("z-order cannot encode type " + type);
    };
  }
}
