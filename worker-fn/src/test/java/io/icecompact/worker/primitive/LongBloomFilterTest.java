package io.icecompact.worker.primitive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class LongBloomFilterTest {
  /** A Bloom filter's one promise: every key added is found. */
  @Property(tries = 200)
  void everyKeyAddedIsFound(@ForAll @Size(max = 5_000) List<Long> keys) {
    LongBloomFilter filter = new LongBloomFilter(keys.size());
    keys.forEach(filter::add);
    assertThat(keys).allMatch(filter::mayContain);
  }

  /**
   * Sequential ids, as a CDC table's keys are: few absent keys pass (the rate the index's CPU
   * depends on), and none added is missed.
   */
  @Test
  void fewAbsentIdsPass() {
    Random random = new Random(27);
    Set<Long> added = new HashSet<>();
    while (added.size() < 200_000) {
      added.add((long) random.nextInt(4_000_000));
    }
    LongBloomFilter filter = new LongBloomFilter(added.size());
    added.forEach(filter::add);
    long passed = 0;
    long absent = 0;
    for (long key = 0; key < 4_000_000; key++) {
      if (added.contains(key)) {
        assertThat(filter.mayContain(key)).as("key %d", key).isTrue();
      } else {
        absent++;
        passed += filter.mayContain(key) ? 1 : 0;
      }
    }
    assertThat((double) passed / absent).as("false positive rate").isLessThan(0.05);
    assertThat(LongBloomFilter.bytesFor(added.size())).isLessThanOrEqualTo(added.size() * 3L);
  }
}
