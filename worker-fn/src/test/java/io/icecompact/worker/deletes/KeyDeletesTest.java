package io.icecompact.worker.deletes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class KeyDeletesTest {
  /**
   * The newest sequence of each key, as a map taking the maximum gives it; absent keys are NONE.
   */
  @Property(tries = 100)
  void longKeysKeepTheNewestSequence(
      @ForAll @Size(max = 2_000) List<@IntRange(min = -50, max = 50) Integer> keys,
      @ForAll @Size(min = 1, max = 50) List<@IntRange(min = 0, max = 1_000) Integer> sequences) {
    LongKeyDeletes index = new LongKeyDeletes(keys.size() / 3);
    Map<Long, Long> newest = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      long sequence = sequences.get(i % sequences.size());
      index.add(key(keys.get(i).longValue()), sequence);
      newest.merge(keys.get(i).longValue(), sequence, Math::max);
    }
    index.seal();
    for (long key = -60; key <= 60; key++) {
      assertThat(index.newestSequence(key)).isEqualTo(newest.getOrDefault(key, KeyDeletes.NONE));
      assertThat(index.newestSequence(key(key)))
          .isEqualTo(newest.getOrDefault(key, KeyDeletes.NONE));
      long probe = key;
      assertThat(index.anyWithin(key, key + 5))
          .isEqualTo(newest.keySet().stream().anyMatch(k -> k >= probe && k <= probe + 5));
    }
    assertThat(index.size()).isEqualTo(newest.size());
  }

  /**
   * A big index, which a Bloom filter fronts: every deleted key still found with its newest
   * sequence (a filter has no false negatives), every other key still NONE.
   */
  @Test
  void aBigIndexFindsEveryKeyThroughItsFilter() {
    java.util.Random random = new java.util.Random(27);
    int count = LongKeyDeletes.FILTER_FROM_KEYS * 2;
    LongKeyDeletes index = new LongKeyDeletes(count);
    Map<Long, Long> newest = new HashMap<>();
    for (int i = 0; i < count; i++) {
      long key = random.nextInt(4 * count); // dense, as ids are, so probes hit and miss
      long sequence = random.nextInt(1_000);
      index.add(key(key), sequence);
      newest.merge(key, sequence, Math::max);
    }
    index.seal();
    for (long key = -10; key < 4L * count + 10; key++) {
      assertThat(index.newestSequence(key))
          .as("key %d", key)
          .isEqualTo(newest.getOrDefault(key, KeyDeletes.NONE));
    }
    assertThat(index.size()).isEqualTo(newest.size());
  }

  @Test
  void aNullKeyDeletesNullValuesOnly() {
    LongKeyDeletes longs = new LongKeyDeletes(1);
    longs.add(key((Object) null), 7);
    assertThat(longs.nullSequence()).isEqualTo(7);
    assertThat(longs.newestSequence(key((Object) null))).isEqualTo(7);
    assertThat(longs.newestSequence(0)).isEqualTo(KeyDeletes.NONE);

    ValueKeyDeletes values = new ValueKeyDeletes(1);
    values.add(key((Object) null), 3);
    assertThat(values.newestSequence((Object) null)).isEqualTo(3);
    assertThat(values.newestSequence("")).isEqualTo(KeyDeletes.NONE);
  }

  /**
   * Iceberg's equality: strings whatever their class, binary by content, NaN equals NaN, -0.0 is
   * not 0.0.
   */
  @Test
  void valuesCompareAsIcebergCompares() {
    ValueKeyDeletes strings = new ValueKeyDeletes(2);
    strings.add(key(new Utf8("a")), 4);
    assertThat(strings.newestSequence("a")).isEqualTo(4);
    assertThat(strings.newestSequence(new Utf8("a"))).isEqualTo(4);

    ValueKeyDeletes binary = new ValueKeyDeletes(2);
    binary.add(key(ByteBuffer.wrap(new byte[] {1, 2})), 5);
    assertThat(binary.newestSequence(ByteBuffer.wrap(new byte[] {9, 1, 2}, 1, 2))).isEqualTo(5);

    ValueKeyDeletes doubles = new ValueKeyDeletes(2);
    doubles.add(key(Double.NaN), 6);
    doubles.add(key(-0.0d), 2);
    assertThat(doubles.newestSequence(Double.NaN)).isEqualTo(6);
    assertThat(doubles.newestSequence(0.0d)).isEqualTo(KeyDeletes.NONE);
    assertThat(doubles.newestSequence(-0.0d)).isEqualTo(2);
  }

  @Test
  void structKeysCompareFieldByFieldAndKeepTheNewest() {
    Types.StructType type =
        Types.StructType.of(
            Types.NestedField.optional(1, "tenant", Types.StringType.get()),
            Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()));
    StructKeyDeletes index = new StructKeyDeletes(type);
    index.add(key(new Utf8("t1"), 10L), 3);
    index.add(key("t1", 10L), 9);
    index.add(key("t1", 10L), 5);
    index.add(key(null, 11L), 2);
    assertThat(index.newestSequence(key("t1", 10L))).isEqualTo(9);
    assertThat(index.newestSequence(key("t1", 11L))).isEqualTo(KeyDeletes.NONE);
    assertThat(index.newestSequence(key(null, 11L))).isEqualTo(2);
    assertThat(index.size()).isEqualTo(2);
  }

  private static StructLike key(Object... values) {
    return KeyRow.of(values);
  }
}
