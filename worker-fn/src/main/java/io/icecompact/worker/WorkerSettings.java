package io.icecompact.worker;

import java.nio.file.Path;

/**
 * How a {@link GroupRewriter} rewrites each group: the defaults ({@link #defaults}) are a Lambda
 * worker's, which rewrites one group at a time with the whole JVM; a runner rewriting several
 * groups at once gives each its share ({@link #sharedBy}).
 *
 * @param pathChoice the paths a group may take
 * @param prefetch the limits of the input prefetch ({@link PrefetchLimits#OFF} reads every file
 *     directly)
 * @param columnThreads the threads the columnar path copies a group's columns on
 * @param crossCheckManifestBytes the most manifest bytes a group's cross-check against the pinned
 *     snapshot may read (see {@link LiveTaskResolver}); 0 always rewrites the group document's
 *     tasks as they are
 * @param sortHeapBytes the heap one group's in-memory sort may count on
 * @param spillDirectory where a group beyond that heap spills its sorted runs: Lambda's /tmp (its
 *     ephemeral storage) by default
 */
public record WorkerSettings(
    RewritePathChoice pathChoice,
    PrefetchLimits prefetch,
    int columnThreads,
    long crossCheckManifestBytes,
    long sortHeapBytes,
    Path spillDirectory) {
  public WorkerSettings {
    if (columnThreads < 1) {
      throw new IllegalArgumentException("columnThreads must be >= 1, got " + columnThreads);
    }
    if (sortHeapBytes < 1) {
      throw new IllegalArgumentException("sortHeapBytes must be >= 1, got " + sortHeapBytes);
    }
  }

  /**
   * One group at a time with the whole JVM: the columnar path on the processors but one, the whole
   * heap to sort.
   */
  public static WorkerSettings defaults() {
    return sharedBy(1);
  }

  /**
   * The defaults for a runner rewriting {@code groupsAtOnce} groups at once: each its share of
   * processors and heap.
   */
  public static WorkerSettings sharedBy(int groupsAtOnce) {
    long heap = Runtime.getRuntime().maxMemory();
    return new WorkerSettings(
        RewritePathChoice.AUTO,
        PrefetchLimits.forHeap(heap),
        defaultColumnThreads(groupsAtOnce),
        LiveTaskResolver.CROSS_CHECK_MANIFEST_BYTES,
        heap / Math.max(1, groupsAtOnce),
        Path.of(System.getProperty("java.io.tmpdir")));
  }

  /**
   * Column threads for each of {@code groupsAtOnce} groups: the processors but one, shared. One is
   * left to the JIT compiler, the garbage collector and the input prefetch: on 2 cores, copying
   * columns on 2 threads measured slower than on 1 (docs/performance.md).
   */
  public static int defaultColumnThreads(int groupsAtOnce) {
    return Math.max(
        1, (Runtime.getRuntime().availableProcessors() - 1) / Math.max(1, groupsAtOnce));
  }

  public WorkerSettings withPathChoice(RewritePathChoice choice) {
    return new WorkerSettings(
        choice, prefetch, columnThreads, crossCheckManifestBytes, sortHeapBytes, spillDirectory);
  }

  public WorkerSettings withPrefetch(PrefetchLimits limits) {
    return new WorkerSettings(
        pathChoice, limits, columnThreads, crossCheckManifestBytes, sortHeapBytes, spillDirectory);
  }

  public WorkerSettings withColumnThreads(int threads) {
    return new WorkerSettings(
        pathChoice, prefetch, threads, crossCheckManifestBytes, sortHeapBytes, spillDirectory);
  }

  public WorkerSettings withCrossCheckManifestBytes(long bytes) {
    return new WorkerSettings(
        pathChoice, prefetch, columnThreads, bytes, sortHeapBytes, spillDirectory);
  }

  public WorkerSettings withSortHeapBytes(long bytes) {
    return new WorkerSettings(
        pathChoice, prefetch, columnThreads, crossCheckManifestBytes, bytes, spillDirectory);
  }

  public WorkerSettings withSpillDirectory(Path directory) {
    return new WorkerSettings(
        pathChoice, prefetch, columnThreads, crossCheckManifestBytes, sortHeapBytes, directory);
  }
}
