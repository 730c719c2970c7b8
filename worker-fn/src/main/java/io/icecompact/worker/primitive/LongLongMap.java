package io.icecompact.worker.primitive;

/**
 * A map from long keys to non-negative long values: open addressing with linear probing over one
 * array that holds each key next to its value, so a lookup usually reads one cache line. Used for
 * the dictionary ids of an output dictionary's INT32/INT64 values and for the deleted keys of
 * integer equality deletes.
 *
 * <p>Written here because the maps at hand do worse at exactly this: parquet-column shades only
 * fastutil's linked maps, whose keys, values and links sit in three arrays, and boxed maps take ~80
 * bytes an entry. Learning the ids of a timestamp column (tens of thousands of distinct values per
 * output row group, each looked up once per input file, with the map out of cache between lookups)
 * took a third of the columnar path's time with one. Keys are hashed by Fibonacci hashing, which
 * spreads arithmetic progressions (timestamps a second apart, sequential ids) evenly.
 */
public final class LongLongMap {
  private static final long PHI = 0x9E3779B97F4A7C15L;

  private long[] slots; // slot i: key at 2i, value + 1 at 2i + 1 (0: empty)
  private int bits;
  private int size;

  /** A map sized for {@code expected} keys without growing. */
  public LongLongMap(long expected) {
    bits = bitsFor(expected);
    slots = new long[2 << bits];
  }

  /**
   * Heap bytes a map sized for {@code keys} keys takes: 16 a slot, the slots a power of two at most
   * half used.
   */
  public static long bytesFor(long keys) {
    return 16L << bitsFor(keys);
  }

  private static int bitsFor(long expected) {
    int bits = 4;
    while ((1L << bits) < expected * 2L
        && bits < 29) { // 2 << 29 longs: the largest power of two an array holds
      bits++;
    }
    return bits;
  }

  public int size() {
    return size;
  }

  /** The slot of {@code key}: where it is, or the empty slot where it would go. */
  private int slot(long key) {
    int mask = (1 << bits) - 1;
    int slot = (int) ((key * PHI) >>> (64 - bits));
    while (slots[2 * slot + 1] != 0 && slots[2 * slot] != key) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  /** The value of {@code key}, or -1. */
  public long get(long key) {
    return slots[2 * slot(key) + 1] - 1;
  }

  /** Sets the value of {@code key} (a non-negative one), adding the key if absent. */
  public void put(long key, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("Values are non-negative: " + value);
    }
    int slot = slot(key);
    boolean added = slots[2 * slot + 1] == 0;
    slots[2 * slot] = key;
    slots[2 * slot + 1] = value + 1;
    if (added && ++size * 2L > (1L << bits)) {
      grow();
    }
  }

  /** Sets the value of {@code key} to the larger of its value and {@code value}, in one probe. */
  public void putMax(long key, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("Values are non-negative: " + value);
    }
    int slot = slot(key);
    long held = slots[2 * slot + 1];
    if (held == 0) {
      slots[2 * slot] = key;
      slots[2 * slot + 1] = value + 1;
      if (++size * 2L > (1L << bits)) {
        grow();
      }
    } else if (held < value + 1) {
      slots[2 * slot + 1] = value + 1;
    }
  }

  /** The keys, in no order. */
  public long[] keys() {
    long[] keys = new long[size];
    int at = 0;
    for (int i = 0; i < slots.length; i += 2) {
      if (slots[i + 1] != 0) {
        keys[at++] = slots[i];
      }
    }
    return keys;
  }

  /** Doubles the slots, keeping the load at most one half (short probe runs). */
  private void grow() {
    long[] old = slots;
    bits++;
    slots = new long[2 << bits];
    for (int i = 0; i < old.length; i += 2) {
      if (old[i + 1] != 0) {
        int slot = slot(old[i]);
        slots[2 * slot] = old[i];
        slots[2 * slot + 1] = old[i + 1];
      }
    }
  }
}
