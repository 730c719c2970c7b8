package io.icecompact.worker.primitive;

/**
 * A Bloom filter of long keys whose bits for a key all sit in one 64-bit word: a lookup is one
 * memory read and a few arithmetic steps, so a filter of a few hundred kilobytes answers "surely
 * absent" from cache for a map of millions of keys that would miss the cache on every lookup.
 *
 * <p>Written here, not taken from parquet-java ({@code BlockSplitBloomFilter}, the filter its files
 * carry): that one hashes with XXH64 and reads its blocks through a {@code ByteBuffer}, which
 * profiled at half the CPU of converting a CDC table's equality deletes under the C1 compiler the
 * CLI runs with. About 12 bits a key and three bits a key here: ~2% false positives.
 */
public final class LongBloomFilter {
  private static final int BITS_PER_KEY = 12;

  private final long[] words;
  private final int shift; // the top bits of a hash pick the word

  /** An empty filter sized for {@code keys} keys. */
  public LongBloomFilter(long keys) {
    int bits = wordBits(keys);
    words = new long[1 << bits];
    shift = 64 - bits;
  }

  /** Heap bytes of a filter sized for {@code keys} keys. */
  public static long bytesFor(long keys) {
    return 8L << wordBits(keys);
  }

  /** Log2 of the words: a power of two, at least {@link #BITS_PER_KEY} bits a key. */
  private static int wordBits(long keys) {
    int bits = 0;
    while ((64L << bits) < keys * BITS_PER_KEY && bits < 30) {
      bits++;
    }
    return bits;
  }

  public void add(long key) {
    long hash = mix(key);
    words[word(hash)] |= mask(hash);
  }

  /** False only when {@code key} was never added. */
  public boolean mayContain(long key) {
    long hash = mix(key);
    long mask = mask(hash);
    return (words[word(hash)] & mask) == mask;
  }

  private int word(long hash) {
    return shift == 64 ? 0 : (int) (hash >>> shift);
  }

  /** Three bits of the word, from the hash's low 18 bits (the word comes from its top bits). */
  private static long mask(long hash) {
    return 1L << hash | 1L << (hash >>> 6) | 1L << (hash >>> 12);
  }

  /** MurmurHash3's 64-bit finalizer: every key bit moves every hash bit. */
  private static long mix(long key) {
    long hash = key;
    hash ^= hash >>> 33;
    hash *= 0xff51afd7ed558ccdL;
    hash ^= hash >>> 33;
    hash *= 0xc4ceb9fe1a85ec53L;
    hash ^= hash >>> 33;
    return hash;
  }
}
