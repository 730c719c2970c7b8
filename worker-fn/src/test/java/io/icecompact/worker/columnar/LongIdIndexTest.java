package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class LongIdIndexTest {
  /** Ids as a hash map gives them, whatever the keys (0, negatives, extremes), however it grows. */
  @Property(tries = 200)
  void givesEachKeyTheIdItWasAddedWith(
      @ForAll @Size(max = 3_000) List<Long> keys, @ForAll @IntRange(min = 0, max = 4_000) int expected) {
    LongIdIndex index = new LongIdIndex(expected);
    Map<Long, Integer> reference = new HashMap<>();
    for (long key : keys) {
      int id = index.get(key);
      assertThat(id).isEqualTo(reference.getOrDefault(key, -1));
      if (id < 0) {
        index.add(key, reference.size());
        reference.put(key, reference.size());
      }
    }
    assertThat(index.size()).isEqualTo(reference.size());
    reference.forEach((key, id) -> assertThat(index.get(key)).isEqualTo(id));
    assertThat(index.get(Long.MIN_VALUE)).isEqualTo(reference.getOrDefault(Long.MIN_VALUE, -1));
  }

  /** Timestamps a second apart, as a streaming table's: all found again after growing from empty. */
  @Property(tries = 20)
  void keepsArithmeticProgressions(@ForAll @IntRange(min = 1, max = 200_000) int count) {
    LongIdIndex index = new LongIdIndex(0);
    long first = 1_780_272_000_000_000L;
    for (int i = 0; i < count; i++) {
      index.add(first + i * 1_000_000L, i);
    }
    for (int i = 0; i < count; i++) {
      assertThat(index.get(first + i * 1_000_000L)).isEqualTo(i);
    }
    assertThat(index.get(first - 1_000_000L)).isEqualTo(-1);
  }
}
