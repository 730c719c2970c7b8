package io.icecompact.worker.columnar;

import java.io.IOException;
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
    try (RunLengthBitPackingHybridEncoder encoder =
        new RunLengthBitPackingHybridEncoder(width, 256, 1 << 20, HeapByteBufferAllocator.getInstance())) {
      for (int i = 0; i < count; i++) {
        encoder.writeInt(levels[i]);
      }
      BytesInput encoded = BytesInput.copy(encoder.toBytes());
      return BytesInput.concat(BytesInput.fromInt(Math.toIntExact(encoded.size())), encoded);
    }
  }
}
