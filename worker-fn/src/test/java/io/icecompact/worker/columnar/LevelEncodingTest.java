package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

class LevelEncodingTest {
  @Test
  void encodedLevelsDecodeBackWithParquetJavasDecoder() throws IOException {
    byte[] allDefined = new byte[1000];
    Arrays.fill(allDefined, (byte) 1);
    byte[] someNull = allDefined.clone();
    someNull[3] = 0;
    someNull[998] = 0;
    byte[] allNull = new byte[300];
    byte[] one = {1};

    for (byte[] levels : new byte[][] {allDefined, someNull, allNull, one}) {
      byte[] encoded = LevelEncoding.definitions(levels, levels.length, 1).toByteArray();
      assertThat(BytesUtils.readIntLittleEndian(encoded, 0)).isEqualTo(encoded.length - 4);
      assertThat(decode(Arrays.copyOfRange(encoded, 4, encoded.length), levels.length, 1))
          .isEqualTo(levels);
    }
    // the first count levels only
    byte[] prefix = LevelEncoding.definitions(someNull, 3, 1).toByteArray();
    assertThat(decode(Arrays.copyOfRange(prefix, 4, prefix.length), 3, 1)).containsExactly(1, 1, 1);
  }

  @Test
  void singleRunIsRecognisedOnlyWhenItCoversThePageWithTheValue() throws IOException {
    byte[] allDefined = new byte[20_000];
    Arrays.fill(allDefined, (byte) 1);
    byte[] parquetJava = encodeWithParquetJava(allDefined);

    assertThat(LevelEncoding.isSingleRun(parquetJava, 20_000, 1, 1)).isTrue();
    assertThat(LevelEncoding.isSingleRun(parquetJava, 20_001, 1, 1)).isFalse();
    assertThat(LevelEncoding.isSingleRun(encodeWithParquetJava(new byte[500]), 500, 1, 1))
        .as("all null: a run of 0")
        .isFalse();

    byte[] oneNull = allDefined.clone();
    oneNull[10_000] = 0;
    assertThat(LevelEncoding.isSingleRun(encodeWithParquetJava(oneNull), 20_000, 1, 1)).isFalse();
    byte[] firstNull = allDefined.clone();
    firstNull[0] = 0;
    assertThat(LevelEncoding.isSingleRun(encodeWithParquetJava(firstNull), 20_000, 1, 1))
        .as("opens with a bit-packed run")
        .isFalse();
    assertThat(LevelEncoding.isSingleRun(new byte[0], 1, 1, 1)).isFalse();
  }

  private static byte[] encodeWithParquetJava(byte[] levels) throws IOException {
    try (RunLengthBitPackingHybridEncoder encoder =
        new RunLengthBitPackingHybridEncoder(
            1, 256, 1 << 20, HeapByteBufferAllocator.getInstance())) {
      for (byte level : levels) {
        encoder.writeInt(level);
      }
      return encoder.toBytes().toByteArray();
    }
  }

  private static byte[] decode(byte[] rle, int count, int maxDefinition) throws IOException {
    RunLengthBitPackingHybridDecoder decoder =
        new RunLengthBitPackingHybridDecoder(
            BytesUtils.getWidthFromMaxInt(maxDefinition), new ByteArrayInputStream(rle));
    byte[] levels = new byte[count];
    for (int i = 0; i < count; i++) {
      levels[i] = (byte) decoder.readInt();
    }
    return levels;
  }
}
