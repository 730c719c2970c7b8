package io.icecompact.worker;

/**
 * How far a worker reads a group's input files ahead of the rewrite.
 *
 * @param maxConcurrentRequests whole-file reads running at once (0 turns prefetch off)
 * @param maxBytesInFlight bytes fetched or being fetched and not yet consumed by the rewrite
 * @param maxFileBytes larger files are not prefetched: they are read in ranges as usual
 */
public record PrefetchLimits(int maxConcurrentRequests, long maxBytesInFlight, long maxFileBytes) {
  /**
   * 8 requests, 64 MB: hundreds of ~60 KB files stop being one round trip each, in bounded heap.
   */
  public static final PrefetchLimits DEFAULT = new PrefetchLimits(8, 64L << 20, 8L << 20);

  public static final PrefetchLimits OFF = new PrefetchLimits(0, 0, 0);

  /**
   * {@link #DEFAULT}, with the bytes in flight capped at 1/16 of {@code maxHeapBytes}: the buffers
   * add to the rewrite's own working set (its open row group), so a small heap gets a smaller
   * window.
   */
  public static PrefetchLimits forHeap(long maxHeapBytes) {
    long budget = Math.min(DEFAULT.maxBytesInFlight(), Math.max(1, maxHeapBytes / 16));
    return new PrefetchLimits(
        DEFAULT.maxConcurrentRequests(), budget, Math.min(DEFAULT.maxFileBytes(), budget));
  }

  public PrefetchLimits {
    if (maxConcurrentRequests < 0 || maxBytesInFlight < 0 || maxFileBytes < 0) {
      throw new IllegalArgumentException("Prefetch limits must not be negative");
    }
    if (maxFileBytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("maxFileBytes must fit in one array: " + maxFileBytes);
    }
    if (maxFileBytes > maxBytesInFlight) {
      // a file larger than the budget could never be fetched
      throw new IllegalArgumentException(
          "maxFileBytes ("
              + maxFileBytes
              + ") must not exceed maxBytesInFlight ("
              + maxBytesInFlight
              + ")");
    }
  }

  public boolean enabled() {
    return maxConcurrentRequests > 0 && maxFileBytes > 0;
  }
}
