package io.icecompact.worker.deletes;

import io.icecompact.worker.primitive.LongBloomFilter;
import io.icecompact.worker.primitive.LongLongMap;
import java.util.Arrays;
import org.apache.iceberg.StructLike;

/**
 * Deleted keys of one integer-valued column (int, long, date, time, timestamps) as primitive longs:
 * no boxing and no object per key, so a CDC table's millions of deleted ids fit in tens of
 * megabytes. The distinct keys are also kept sorted, to skip a row group whose key bounds hold
 * none.
 *
 * <p>A big index is fronted by a Bloom filter ({@link LongBloomFilter}, ~12 bits a key): a CDC
 * table deletes a few percent of its keys, so most lookups miss, and a miss in a map of millions of
 * keys is a cache miss (and a TLB miss) each time, which took most of a conversion's CPU (profiled:
 * 12M lookups in maps of ~600,000 keys); the filter, a few hundred kilobytes, stays in cache and
 * turns most of those away.
 */
public final class LongKeyDeletes implements KeyDeletes {
  /** Keys from which a filter pays: its map (16 bytes a slot, at most half used) is past ~1 MB. */
  static final int FILTER_FROM_KEYS = 1 << 15;

  private final LongLongMap sequences;
  private long nullSequence = NONE;
  private long[] sorted;
  private LongBloomFilter filter; // null: every lookup goes to the map

  LongKeyDeletes(long expectedKeys) {
    this.sequences = new LongLongMap(expectedKeys);
  }

  /** Heap bytes for {@code keys} keys: the map, the sorted copy and the filter. */
  static long estimateBytes(long keys) {
    long filter = keys < FILTER_FROM_KEYS ? 0 : LongBloomFilter.bytesFor(keys);
    return LongLongMap.bytesFor(keys) + keys * 8 + filter;
  }

  @Override
  public void add(StructLike key, long sequence) {
    Object value = key.get(0, Object.class);
    if (value == null) {
      addNull(sequence);
    } else {
      add(((Number) value).longValue(), sequence);
    }
  }

  void addNull(long sequence) {
    nullSequence = Math.max(nullSequence, sequence);
  }

  void add(long key, long sequence) {
    sorted = null;
    filter = null;
    sequences.putMax(key, sequence);
  }

  @Override
  public long newestSequence(StructLike key) {
    Object value = key.get(0, Object.class);
    return value == null ? nullSequence : newestSequence(((Number) value).longValue());
  }

  /** The newest delete sequence number of {@code key}, {@link #NONE} when no delete holds it. */
  public long newestSequence(long key) {
    if (filter != null && !filter.mayContain(key)) {
      return NONE;
    }
    long sequence = sequences.get(key);
    return sequence < 0 ? NONE : sequence;
  }

  /** The newest delete sequence number of the null key. */
  public long nullSequence() {
    return nullSequence;
  }

  /**
   * Sorts the distinct keys for {@link #anyWithin} and builds the filter of a big index: called
   * once, after the last {@link #add}.
   */
  void seal() {
    long[] keys = sequences.keys();
    Arrays.sort(keys);
    sorted = keys;
    if (keys.length >= FILTER_FROM_KEYS) {
      LongBloomFilter built = new LongBloomFilter(keys.length);
      for (long key : keys) {
        built.add(key);
      }
      filter = built;
    }
  }

  /** Whether some deleted key lies in [min, max]; true until {@link #seal} ran. */
  public boolean anyWithin(long min, long max) {
    if (sorted == null) {
      return true;
    }
    int found = Arrays.binarySearch(sorted, min);
    int first = found >= 0 ? found : -found - 1; // the first key >= min
    return first < sorted.length && sorted[first] <= max;
  }

  @Override
  public int size() {
    return sequences.size() + (nullSequence == NONE ? 0 : 1);
  }
}
