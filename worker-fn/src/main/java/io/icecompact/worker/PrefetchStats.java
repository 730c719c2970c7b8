package io.icecompact.worker;

/**
 * What a group's prefetch did.
 *
 * @param filesPrefetched files served from memory
 * @param bytesPrefetched their bytes
 * @param filesReadDirectly planned files the rewrite asked for before their fetch had started (read
 *     from storage as usual) or after their bytes were released
 * @param peakBytesInFlight the most bytes reserved at once: fetching, or fetched and not yet
 *     released
 * @param peakConcurrentRequests the most whole-file reads running at once
 */
public record PrefetchStats(
    int filesPrefetched,
    long bytesPrefetched,
    int filesReadDirectly,
    long peakBytesInFlight,
    int peakConcurrentRequests) {
  public static final PrefetchStats NONE = new PrefetchStats(0, 0, 0, 0, 0);

  /** Both groups' counts, and the higher of their peaks (each group has its own budget). */
  public PrefetchStats plus(PrefetchStats other) {
    return new PrefetchStats(
        filesPrefetched + other.filesPrefetched,
        bytesPrefetched + other.bytesPrefetched,
        filesReadDirectly + other.filesReadDirectly,
        Math.max(peakBytesInFlight, other.peakBytesInFlight),
        Math.max(peakConcurrentRequests, other.peakConcurrentRequests));
  }
}
