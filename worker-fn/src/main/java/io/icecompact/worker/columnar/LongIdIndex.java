package io.icecompact.worker.columnar;

/**
 * The dictionary ids of an output dictionary's INT32 or INT64 values: open addressing with linear
 * probing over one array that holds each key next to its id, so a lookup usually reads one cache line.
 *
 * <p>Written here because the maps at hand do worse at exactly this: parquet-column shades only
 * fastutil's linked maps, whose keys, values and links sit in three arrays. Learning the ids of a
 * timestamp column (tens of thousands of distinct values per output row group, each looked up once per
 * input file, with the map out of cache between lookups) took a third of the columnar path's time with
 * one. Keys are hashed by Fibonacci hashing, which spreads arithmetic progressions (timestamps a second
 * apart) evenly.
 */
final class LongIdIndex {
  private static final long PHI = 0x9E3779B97F4A7C15L;

  private long[] slots; // slot i: key at 2i, id + 1 at 2i + 1 (0: empty)
  private int bits;
  private int size;

  /** An index sized for {@code expected} ids without growing. */
  LongIdIndex(int expected) {
    bits = 4;
    while ((1 << bits) < expected * 2L) {
      bits++;
    }
    slots = new long[2 << bits];
  }

  int size() {
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

  /** The id of {@code key}, or -1. */
  int get(long key) {
    return (int) slots[2 * slot(key) + 1] - 1;
  }

  /** Adds {@code key}, not in the index, with {@code id}. */
  void add(long key, int id) {
    int slot = slot(key);
    slots[2 * slot] = key;
    slots[2 * slot + 1] = id + 1L;
    if (++size * 2 > (1 << bits)) {
      grow();
    }
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
