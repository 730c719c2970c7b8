package io.icecompact.worker.columnar;

import java.io.IOException;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;

/** Definition levels of a v1 data page as parquet-java writes them: RLE, their length first. */
final class LevelEncoding {
  private LevelEncoding() {}

  /** The first {@code count} of {@code levels}, encoded for a column of {@code maxDefinition}. */
  static BytesInput definitions(byte[] levels, int count, int maxDefinition) throws IOException {
    int width = BytesUtils.getWidthFromMaxInt(maxDefinition);
    if (count > 0 && allEqual(levels, count)) {
      // a page without nulls (most pages): one RLE run, as parquet-java's encoder writes it too,
      // without feeding the encoder value by value
      byte[] run = singleRun(count, levels[0], width);
      return BytesInput.concat(BytesInput.fromInt(run.length), BytesInput.from(run));
    }
    try (RunLengthBitPackingHybridEncoder encoder =
        new RunLengthBitPackingHybridEncoder(
            width, 256, 1 << 20, HeapByteBufferAllocator.getInstance())) {
      for (int i = 0; i < count; i++) {
        encoder.writeInt(levels[i]);
      }
      BytesInput encoded = BytesInput.copy(encoder.toBytes());
      return BytesInput.concat(BytesInput.fromInt(Math.toIntExact(encoded.size())), encoded);
    }
  }

  /**
   * Whether RLE/bit-packed {@code levels} (without their length prefix) open with one RLE run of
   * {@code value} covering at least {@code count} levels: then every level of the page is {@code
   * value} and none needs decoding.
   */
  static boolean isSingleRun(byte[] levels, int count, int value, int width) {
    long header = 0;
    int shift = 0;
    int pos = 0;
    while (true) {
      if (pos >= levels.length || shift > 35) {
        return false;
      }
      int b = levels[pos++] & 0xFF;
      header |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
      shift += 7;
    }
    if ((header & 1) != 0 || (header >>> 1) < count) {
      return false; // a bit-packed run, or an RLE run shorter than the page
    }
    int valueBytes = (width + 7) / 8;
    if (pos + valueBytes > levels.length) {
      return false;
    }
    int runValue = 0;
    for (int i = 0; i < valueBytes; i++) {
      runValue |= (levels[pos + i] & 0xFF) << (8 * i);
    }
    return runValue == value;
  }

  private static boolean allEqual(byte[] levels, int count) {
    byte first = levels[0];
    for (int i = 1; i < count; i++) {
      if (levels[i] != first) {
        return false;
      }
    }
    return true;
  }

  /**
   * One RLE run: its ULEB128 header ({@code count << 1}), then the value in whole bytes,
   * little-endian.
   */
  private static byte[] singleRun(int count, int value, int width) {
    int valueBytes = (width + 7) / 8;
    byte[] run = new byte[5 + valueBytes];
    int pos = 0;
    long header = (long) count << 1;
    while ((header & ~0x7FL) != 0) {
      run[pos++] = (byte) ((header & 0x7F) | 0x80);
      header >>>= 7;
    }
    run[pos++] = (byte) header;
    for (int i = 0; i < valueBytes; i++) {
      run[pos++] = (byte) (value >>> (8 * i));
    }
    return Arrays.copyOf(run, pos);
  }
}
