package io.icecompact.bench;

import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.PrefetchStats;
import io.icecompact.worker.RewritePathChoice;
import io.icecompact.worker.WorkerSettings;
import io.icecompact.worker.sort.SortSpill;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One bench configuration: every group of a stored plan rewritten by one path choice on a pool of
 * threads, as the embedded runner's workers do, and nothing committed. The output files are deleted
 * afterwards, so the next configuration rewrites the same groups of the same table.
 */
final class PathRun {
  /** What a run measured. */
  record Figures(
      double seconds,
      double cpuSeconds,
      long inputBytes,
      long inputRows,
      long outputFiles,
      long peakHeapBytes,
      RewritePathTally paths,
      PrefetchStats prefetch,
      SortSpill.Spilled spilled) {
    double megabytesPerSecond() {
      return inputBytes / (1024.0 * 1024) / seconds;
    }

    double rowsPerSecond() {
      return inputRows / seconds;
    }
  }

  private PathRun() {}

  /**
   * The CPU time of this whole process (workers, prefetch, garbage collector, compiler): on a
   * machine other work shares, wall time measures the sharing as much as the rewrite, and CPU time
   * less so.
   */
  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }

  /**
   * @param sortHeapBytes each group's sort heap ({@link WorkerSettings#sortHeapBytes}), 0 for its
   *     share of this heap
   */
  static Figures run(
      TableAccess access,
      JobSpec spec,
      PlanSummary summary,
      RewritePathChoice choice,
      PrefetchLimits prefetch,
      int threads,
      int columnThreads,
      long sortHeapBytes) {
    GroupRewriter rewriter =
        new GroupRewriter(
            access,
            WorkerSettings.sharedBy(threads)
                .withPathChoice(choice)
                .withPrefetch(prefetch)
                .withColumnThreads(columnThreads)
                .withSortHeapBytes(
                    sortHeapBytes > 0
                        ? sortHeapBytes
                        : Runtime.getRuntime().maxMemory() / threads));
    System.gc();
    HeapSampler heap = HeapSampler.start();
    long start = System.nanoTime();
    long cpuStart = processCpuNanos();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> groups = new ArrayList<>();
      for (int index : summary.groupIndexes()) {
        groups.add(pool.submit(() -> rewriter.rewrite(GroupRequest.of(spec, summary, index, 1))));
      }
      for (Future<?> group : groups) {
        group.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("A group failed: " + e.getCause().getMessage(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (processCpuNanos() - cpuStart) / 1e9;
    long peakHeap = heap.stop();

    JobStore store = new JobStore(access.fileIO());
    RewritePathTally paths = new RewritePathTally();
    long rows = 0;
    long outputFiles = 0;
    for (int index : summary.groupIndexes()) {
      GroupResult result =
          store.readGroupResult(new WorkLocation(summary.workLocation()), index).orElseThrow();
      paths.add(result);
      rows += result.inputRows();
      outputFiles += result.outputFiles().size();
      result
          .outputFiles()
          .forEach(file -> access.fileIO().deleteFile(file.get("file-path").asText()));
    }
    return new Figures(
        seconds,
        cpuSeconds,
        summary.inputBytes(),
        rows,
        outputFiles,
        peakHeap,
        paths,
        rewriter.prefetchStats(),
        rewriter.spillStats());
  }
}
