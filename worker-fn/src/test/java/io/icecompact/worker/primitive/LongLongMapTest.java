package io.icecompact.worker.primitive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class LongLongMapTest {
  /**
   * Values as a hash map gives them, whatever the keys (0, negatives, extremes), however it grows.
   */
  @Property(tries = 200)
  void givesEachKeyItsLastOrLargestValue(
      @ForAll @Size(max = 3_000) List<Long> keys,
      @ForAll @Size(max = 3_000) List<@LongRange(min = 0, max = 1_000) Long> values,
      @ForAll @IntRange(min = 0, max = 4_000) int expected) {
    LongLongMap map = new LongLongMap(expected);
    Map<Long, Long> reference = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      long key = keys.get(i);
      assertThat(map.get(key)).isEqualTo(reference.getOrDefault(key, -1L));
      long value = values.isEmpty() ? i : values.get(i % values.size());
      if (i % 2 == 0) {
        map.put(key, value);
        reference.put(key, value);
      } else {
        map.putMax(key, value);
        reference.merge(key, value, Math::max);
      }
    }
    assertThat(map.size()).isEqualTo(reference.size());
    reference.forEach((key, value) -> assertThat(map.get(key)).isEqualTo(value));
    assertThat(map.get(Long.MIN_VALUE)).isEqualTo(reference.getOrDefault(Long.MIN_VALUE, -1L));
    long[] held = map.keys();
    Arrays.sort(held);
    assertThat(held)
        .containsExactly(reference.keySet().stream().mapToLong(Long::longValue).sorted().toArray());
  }

  /**
   * Timestamps a second apart, as a streaming table's: all found again after growing from empty.
   */
  @Property(tries = 20)
  void keepsArithmeticProgressions(@ForAll @IntRange(min = 1, max = 200_000) int count) {
    LongLongMap map = new LongLongMap(0);
    long first = 1_780_272_000_000_000L;
    for (int i = 0; i < count; i++) {
      map.put(first + i * 1_000_000L, i);
    }
    for (int i = 0; i < count; i++) {
      assertThat(map.get(first + i * 1_000_000L)).isEqualTo(i);
    }
    assertThat(map.get(first - 1_000_000L)).isEqualTo(-1);
  }

  @Test
  void refusesNegativeValues() {
    assertThatThrownBy(() -> new LongLongMap(4).put(1, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Values are non-negative: -1");
  }
}
