package io.icecompact.worker.deletes;

import io.icecompact.worker.primitive.LongLongMap;
import java.util.Arrays;
import org.apache.iceberg.StructLike;

/**
 * Deleted keys of one integer-valued column (int, long, date, time, timestamps) as primitive longs:
 * no boxing and no object per key, so a CDC table's millions of deleted ids fit in tens of
 * megabytes. The distinct keys are also kept sorted, to skip a row group whose key bounds hold
 * none.
 */
public final class LongKeyDeletes implements KeyDeletes {
  private final LongLongMap sequences;
  private long nullSequence = NONE;
  private long[] sorted;

  LongKeyDeletes(long expectedKeys) {
    this.sequences = new LongLongMap(expectedKeys);
  }

  /** Heap bytes for {@code keys} keys: the map and the sorted copy. */
  static long estimateBytes(long keys) {
    return LongLongMap.bytesFor(keys) + keys * 8;
  }

  @Override
  public void add(StructLike key, long sequence) {
    Object value = key.get(0, Object.class);
    if (value == null) {
      nullSequence = Math.max(nullSequence, sequence);
    } else {
      add(((Number) value).longValue(), sequence);
    }
  }

  void add(long key, long sequence) {
    sorted = null;
    sequences.putMax(key, sequence);
  }

  @Override
  public long newestSequence(StructLike key) {
    Object value = key.get(0, Object.class);
    return value == null ? nullSequence : newestSequence(((Number) value).longValue());
  }

  /** The newest delete sequence number of {@code key}, {@link #NONE} when no delete holds it. */
  public long newestSequence(long key) {
    long sequence = sequences.get(key);
    return sequence < 0 ? NONE : sequence;
  }

  /** The newest delete sequence number of the null key. */
  public long nullSequence() {
    return nullSequence;
  }

  /** Sorts the distinct keys for {@link #anyWithin}: called once, after the last {@link #add}. */
  void sortKeys() {
    long[] keys = sequences.keys();
    Arrays.sort(keys);
    sorted = keys;
  }

  /** Whether some deleted key lies in [min, max]; true until {@link #sortKeys} ran. */
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
