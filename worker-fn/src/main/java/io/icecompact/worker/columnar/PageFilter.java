package io.icecompact.worker.columnar;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.BitSet;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Removes deleted rows from a plain v1 data page of a flat column without decoding values into
 * objects: definition levels are decoded and encoded again, kept values are copied as bytes, and the
 * page's statistics are computed from the kept values (the input chunk's no longer bound it).
 *
 * <p>A page whose values are plain-encoded is a run of fixed-width values, or of length-prefixed ones
 * for BINARY, so a deleted value is a byte range to leave out; parquet-java has no API that edits a
 * page, and going through its column reader and writer costs a decode, an encode and statistics per
 * value. Booleans (bit-packed) and floating-point types (NaN metrics) are not filtered here.
 */
final class PageFilter {
  /** The page without its deleted rows; {@code bytes} compressed. */
  record Filtered(byte[] bytes, int uncompressedSize, int valueCount, Statistics<?> statistics, Encoding dl) {}

  private PageFilter() {}

  static boolean canFilter(ColumnDescriptor column) {
    PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
    return column.getMaxRepetitionLevel() == 0
        && column.getMaxDefinitionLevel() <= 1
        && (type == PrimitiveTypeName.INT32
            || type == PrimitiveTypeName.INT64
            || type == PrimitiveTypeName.BINARY
            || type == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY);
  }

  /**
   * @param firstPosition the file position of the page's first row
   * @return the filtered page, or null when none of its rows is kept
   */
  static Filtered filter(
      ChunkPassThrough.CopiedPage page,
      ColumnDescriptor column,
      BytesInputDecompressor decompressor,
      PageCompressor compressor,
      BitSet deleted,
      long firstPosition) throws IOException {
    if (page.values() != Encoding.PLAIN
        || (column.getMaxDefinitionLevel() > 0 && page.dl() != Encoding.RLE)) {
      throw new IOException("Cannot filter a " + page.values() + "/" + page.dl() + " page of " + column);
    }
    byte[] input = decompressor.decompress(BytesInput.from(page.bytes()), page.uncompressedSize()).toByteArray();
    boolean optional = column.getMaxDefinitionLevel() == 1;
    int position = 0;
    RunLengthBitPackingHybridDecoder levels = null;
    if (optional) {
      int length = BytesUtils.readIntLittleEndian(input, 0);
      levels = new RunLengthBitPackingHybridDecoder(1, new ByteArrayInputStream(input, 4, length));
      position = 4 + length;
    }
    PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
    int fixedWidth =
        switch (type) {
          case INT32 -> 4;
          case INT64 -> 8;
          case FIXED_LEN_BYTE_ARRAY -> column.getPrimitiveType().getTypeLength();
          default -> -1;
        };
    Statistics<?> statistics = Statistics.createStats(column.getPrimitiveType());
    ByteArrayOutputStream values = new ByteArrayOutputStream(input.length);
    RunLengthBitPackingHybridEncoder keptLevels =
        optional ? new RunLengthBitPackingHybridEncoder(1, 1024, 64 * 1024, HeapByteBufferAllocator.getInstance()) : null;
    int kept = 0;
    boolean anyDeleted = false;
    try {
      for (int row = 0; row < page.valueCount(); row++) {
        boolean present = !optional || levels.readInt() == 1;
        int start = position;
        int width = 0;
        if (present) {
          if (fixedWidth > 0) {
            width = fixedWidth;
          } else {
            width = BytesUtils.readIntLittleEndian(input, position);
            start = position + 4;
          }
          position = start + width;
        }
        if (deleted.get(Math.toIntExact(firstPosition + row))) {
          anyDeleted = true;
          continue;
        }
        kept++;
        if (optional) {
          keptLevels.writeInt(present ? 1 : 0);
        }
        if (!present) {
          statistics.incrementNumNulls();
          continue;
        }
        switch (type) {
          case INT32 -> statistics.updateStats(BytesUtils.readIntLittleEndian(input, start));
          case INT64 -> statistics.updateStats(readLongLittleEndian(input, start));
          default -> statistics.updateStats(Binary.fromReusedByteArray(input, start, width));
        }
        if (fixedWidth < 0) {
          values.write(input, start - 4, width + 4);
        } else {
          values.write(input, start, width);
        }
      }
      if (kept == 0) {
        return null;
      }
      if (!anyDeleted) {
        return new Filtered(page.bytes(), page.uncompressedSize(), kept, statistics, page.dl());
      }
      ByteArrayOutputStream output = new ByteArrayOutputStream(values.size() + 64);
      if (optional) {
        byte[] levelBytes = keptLevels.toBytes().toByteArray();
        BytesUtils.writeIntLittleEndian(output, levelBytes.length);
        output.write(levelBytes);
      }
      values.writeTo(output);
      byte[] uncompressed = output.toByteArray();
      return new Filtered(
          compressor.compress(BytesInput.from(uncompressed)), uncompressed.length, kept, statistics,
          optional ? Encoding.RLE : page.dl());
    } finally {
      if (keptLevels != null) {
        keptLevels.close();
      }
    }
  }

  private static long readLongLittleEndian(byte[] bytes, int offset) {
    long value = 0;
    for (int i = 7; i >= 0; i--) {
      value = (value << 8) | (bytes[offset + i] & 0xFFL);
    }
    return value;
  }
}
