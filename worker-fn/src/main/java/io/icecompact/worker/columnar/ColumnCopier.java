package io.icecompact.worker.columnar;

import java.nio.ByteBuffer;
import java.util.BitSet;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Copies the values of a run of rows of one flat column from an input column reader to an output
 * column writer, leaving out deleted rows. One loop per physical type keeps the per-value work to a
 * read and a write.
 *
 * <p>Two details of parquet-java's column API matter here. A deleted non-null value must be skipped
 * before {@code consume()}, which does not advance past an unread value (a null has no value and
 * must not be skipped). And a binary value is a view into the decompressed input page: it is marked
 * as reused before writing, since the writer's statistics and dictionary keep the values they are
 * given (copying only those marked reused), and would otherwise keep every input page alive with
 * them.
 */
final class ColumnCopier {
  private ColumnCopier() {}

  /**
   * Copies rows {@code [from, to)} of the current row group; {@code firstRow} is the row group's
   * first position in its file, {@code deleted} the file's deleted positions. Returns the rows
   * written.
   */
  static int copy(
      ColumnReader reader,
      ColumnSink sink,
      FloatingPointMetrics metrics,
      int from,
      int to,
      long firstRow,
      BitSet deleted) {
    if (isFixedDecimalToInteger(
        reader.getDescriptor().getPrimitiveType(), sink.column().getPrimitiveType())) {
      return copyFixedDecimal(reader, sink, from, to, firstRow, deleted);
    }
    ColumnWriter writer = sink.writer();
    int maxDefinition = reader.getDescriptor().getMaxDefinitionLevel();
    // a required input column under an optional output one: its values gain the output's level
    int present = sink.column().getMaxDefinitionLevel();
    int fileFrom = Math.toIntExact(firstRow + from);
    int written = 0;
    switch (reader.getDescriptor().getPrimitiveType().getPrimitiveTypeName()) {
      case INT64 -> {
        for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
          int definition = reader.getCurrentDefinitionLevel();
          if (deleted.get(pos)) {
            skip(reader, definition, maxDefinition);
            continue;
          }
          if (definition == maxDefinition) {
            writer.write(reader.getLong(), 0, present);
          } else {
            writer.writeNull(0, definition);
          }
          reader.consume();
          sink.endRecord();
          written++;
        }
      }
      case INT32 -> {
        for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
          int definition = reader.getCurrentDefinitionLevel();
          if (deleted.get(pos)) {
            skip(reader, definition, maxDefinition);
            continue;
          }
          if (definition == maxDefinition) {
            writer.write(reader.getInteger(), 0, present);
          } else {
            writer.writeNull(0, definition);
          }
          reader.consume();
          sink.endRecord();
          written++;
        }
      }
      case BOOLEAN -> {
        for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
          int definition = reader.getCurrentDefinitionLevel();
          if (deleted.get(pos)) {
            skip(reader, definition, maxDefinition);
            continue;
          }
          if (definition == maxDefinition) {
            writer.write(reader.getBoolean(), 0, present);
          } else {
            writer.writeNull(0, definition);
          }
          reader.consume();
          sink.endRecord();
          written++;
        }
      }
      case FLOAT -> {
        for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
          int definition = reader.getCurrentDefinitionLevel();
          if (deleted.get(pos)) {
            skip(reader, definition, maxDefinition);
            continue;
          }
          if (definition == maxDefinition) {
            float value = reader.getFloat();
            writer.write(value, 0, present);
            metrics.addFloat(value);
          } else {
            writer.writeNull(0, definition);
            metrics.addNull();
          }
          reader.consume();
          sink.endRecord();
          written++;
        }
      }
      case DOUBLE -> {
        for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
          int definition = reader.getCurrentDefinitionLevel();
          if (deleted.get(pos)) {
            skip(reader, definition, maxDefinition);
            continue;
          }
          if (definition == maxDefinition) {
            double value = reader.getDouble();
            writer.write(value, 0, present);
            metrics.addDouble(value);
          } else {
            writer.writeNull(0, definition);
            metrics.addNull();
          }
          reader.consume();
          sink.endRecord();
          written++;
        }
      }
      default -> { // BINARY, FIXED_LEN_BYTE_ARRAY, INT96
        for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
          int definition = reader.getCurrentDefinitionLevel();
          if (deleted.get(pos)) {
            skip(reader, definition, maxDefinition);
            continue;
          }
          if (definition == maxDefinition) {
            writer.write(reused(reader.getBinary()), 0, present);
          } else {
            writer.writeNull(0, definition);
          }
          reader.consume();
          sink.endRecord();
          written++;
        }
      }
    }
    return written;
  }

  /** Nulls for rows {@code [from, to)} that are not deleted: a column the file does not have. */
  static int copyNulls(
      ColumnSink sink,
      FloatingPointMetrics metrics,
      int from,
      int to,
      long firstRow,
      BitSet deleted) {
    ColumnWriter writer = sink.writer();
    int fileFrom = Math.toIntExact(firstRow + from);
    int written = 0;
    for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
      if (!deleted.get(pos)) {
        writer.writeNull(0, 0);
        if (metrics != null) {
          metrics.addNull();
        }
        sink.endRecord();
        written++;
      }
    }
    return written;
  }

  /**
   * Whether {@code written} is a decimal in fixed bytes that the output stores as INT32 or INT64
   * (the same precision and scale): pyarrow writes every decimal so unless told otherwise,
   * Iceberg's writer uses integers up to 18 digits.
   */
  static boolean isFixedDecimalToInteger(PrimitiveType written, PrimitiveType output) {
    return written.getPrimitiveTypeName() == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
        && (output.getPrimitiveTypeName() == PrimitiveTypeName.INT32
            || output.getPrimitiveTypeName() == PrimitiveTypeName.INT64)
        && written.getLogicalTypeAnnotation()
            instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
        && written.getLogicalTypeAnnotation().equals(output.getLogicalTypeAnnotation());
  }

  /** A fixed-bytes decimal column into an INT32/INT64 one: each unscaled value as a number. */
  private static int copyFixedDecimal(
      ColumnReader reader, ColumnSink sink, int from, int to, long firstRow, BitSet deleted) {
    ColumnWriter writer = sink.writer();
    int maxDefinition = reader.getDescriptor().getMaxDefinitionLevel();
    int present = sink.column().getMaxDefinitionLevel();
    boolean int32 =
        sink.column().getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
    int fileFrom = Math.toIntExact(firstRow + from);
    int written = 0;
    for (int pos = fileFrom, end = fileFrom + (to - from); pos < end; pos++) {
      int definition = reader.getCurrentDefinitionLevel();
      if (deleted.get(pos)) {
        skip(reader, definition, maxDefinition);
        continue;
      }
      if (definition == maxDefinition) {
        long unscaled = signedValue(reader.getBinary());
        if (int32) {
          writer.write(Math.toIntExact(unscaled), 0, present);
        } else {
          writer.write(unscaled, 0, present);
        }
      } else {
        writer.writeNull(0, definition);
      }
      reader.consume();
      sink.endRecord();
      written++;
    }
    return written;
  }

  /**
   * Big-endian two's complement bytes as a long (the decimal's precision keeps it within 8 bytes'
   * range).
   */
  private static long signedValue(Binary bytes) {
    ByteBuffer buffer = bytes.toByteBuffer();
    long value = buffer.get(buffer.position()); // sign-extended first byte
    for (int i = buffer.position() + 1; i < buffer.limit(); i++) {
      value = (value << 8) | (buffer.get(i) & 0xFF);
    }
    return value;
  }

  /**
   * The value marked as one whose bytes will change: whatever the writer keeps (statistics bounds,
   * dictionary entries) it then copies, and the rest of the input page is not kept alive through
   * it. Cheaper than copying every value.
   */
  static Binary reused(Binary value) {
    ByteBuffer bytes = value.toByteBuffer();
    return bytes.hasArray()
        ? Binary.fromReusedByteArray(
            bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining())
        : Binary.fromReusedByteBuffer(bytes);
  }

  private static void skip(ColumnReader reader, int definition, int maxDefinition) {
    if (definition == maxDefinition) {
      reader.skip();
    }
    reader.consume();
  }
}
