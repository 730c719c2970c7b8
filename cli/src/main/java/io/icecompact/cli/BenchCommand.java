package io.icecompact.cli;

import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LocalWarehouse;
import io.icecompact.cli.runner.EmbeddedJobRunner;
import io.icecompact.cli.runner.ProgressListener;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact bench}: generates a fragmented table at a given scale, runs one job through the
 * embedded runner and prints each stage's time, throughput and peak heap.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Generate a fragmented table and print planner, worker and committer figures.")
final class BenchCommand implements Callable<Integer> {
  @Option(names = "--files", defaultValue = "600", description = "Data files (default: ${DEFAULT-VALUE})")
  int files;

  @Option(names = "--partitions", defaultValue = "10", description = "Day partitions (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(names = "--rows-per-file", defaultValue = "12000", description = "Rows per file (default: ${DEFAULT-VALUE}, ~330 KB)")
  int rowsPerFile;

  @Option(names = "--delete-files", defaultValue = "200", description = "Files with position deletes (default: ${DEFAULT-VALUE})")
  int deleteFiles;

  @Option(names = "--format-version", defaultValue = "2", description = "2 or 3 (default: ${DEFAULT-VALUE})")
  int formatVersion;

  @Option(names = "--workers", defaultValue = "1", description = "Worker threads (default: ${DEFAULT-VALUE})")
  int workers;

  @Option(names = "--warehouse", paramLabel = "DIR", description = "Where to build the table (default: a temporary directory)")
  Path warehouse;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Path dir = warehouse != null ? warehouse : Files.createTempDirectory("icecompact-bench-");
    Map<String, String> catalog = LocalWarehouse.catalogProperties(dir);
    int perPartition = Math.max(1, files / Math.max(1, partitions));
    FragmentedTable.Shape shape =
        new FragmentedTable.Shape(partitions, perPartition, rowsPerFile, formatVersion, deleteFiles, 1000, true);
    long genStart = System.nanoTime();
    try (TableAccess access = new TableAccess(catalog)) {
      FragmentedTable.create(access.catalog(), TableIdentifier.parse("bench.orders"), shape);
    }
    err.printf(Locale.ROOT, "generated %d files in %.1f s%n", partitions * perPartition, (System.nanoTime() - genStart) / 1e9);

    PhaseClock clock = new PhaseClock();
    System.gc();
    HeapSampler heap = HeapSampler.start();
    long start = System.nanoTime();
    long startCpu = PhaseClock.processCpuNanos();
    JobResult result =
        new EmbeddedJobRunner(workers, clock)
            .run(new JobSpec(null, "bench.orders", catalog, Map.of(), null, null, null));
    long end = System.nanoTime();
    long endCpu = PhaseClock.processCpuNanos();
    long peakHeap = heap.stop();

    double planner = (clock.planned.get() - start) / 1e9;
    double rewrite = (clock.committing.get() - clock.planned.get()) / 1e9;
    double committer = (end - clock.committing.get()) / 1e9;
    double plannerCpu = (clock.plannedCpu.get() - startCpu) / 1e9;
    double rewriteCpu = (clock.committingCpu.get() - clock.plannedCpu.get()) / 1e9;
    double committerCpu = (endCpu - clock.committingCpu.get()) / 1e9;
    double mb = result.rewrittenBytesCount() / (1024.0 * 1024);
    out.printf(Locale.ROOT, "table: %d files, %.1f MB, %d rows, format v%d, %d files with position deletes%n",
        partitions * perPartition, clock.inputBytes.get() / (1024.0 * 1024), clock.rows.get(), formatVersion, deleteFiles);
    out.printf(Locale.ROOT, "result: %s, %d -> %d files, %d groups%n",
        result.status(), result.rewrittenDataFilesCount(), result.addedDataFilesCount(), result.rewrittenGroups());
    out.printf(Locale.ROOT, "planner:   %6.2f s, CPU %6.2f s%n", planner, plannerCpu);
    out.printf(Locale.ROOT, "workers:   %6.2f s  %6.1f MB/s total, %6.1f MB/s per worker thread (%d), %,.0f rows/s%n",
        rewrite, mb / rewrite, mb / rewrite / workers, workers, clock.rows.get() / rewrite);
    out.printf(Locale.ROOT, "           CPU %6.2f s: %6.1f MB per CPU second%n", rewriteCpu, mb / rewriteCpu);
    out.printf(Locale.ROOT, "committer: %6.2f s, CPU %6.2f s%n", committer, committerCpu);
    out.printf(Locale.ROOT, "total:     %6.2f s, peak heap %.0f MB (max heap %.0f MB)%n",
        (end - start) / 1e9, peakHeap / (1024.0 * 1024), Runtime.getRuntime().maxMemory() / (1024.0 * 1024));
    out.flush();
    return result.status().success() ? 0 : IcecompactCli.EXIT_JOB_NOT_DONE;
  }

  /**
   * Samples the heap in use every 10 ms: the highest reading, garbage included, bounds the job's
   * working set from above. Run with a small -Xmx to show the job fits in it.
   */
  private static final class HeapSampler implements Runnable {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final Thread thread = new Thread(this, "heap-sampler");
    private volatile boolean running = true;
    private long peak;

    static HeapSampler start() {
      HeapSampler sampler = new HeapSampler();
      sampler.thread.setDaemon(true);
      sampler.thread.start();
      return sampler;
    }

    @Override
    public void run() {
      while (running) {
        peak = Math.max(peak, memory.getHeapMemoryUsage().getUsed());
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    long stop() {
      running = false;
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Math.max(peak, memory.getHeapMemoryUsage().getUsed());
    }
  }

  /**
   * Marks when planning ended and committing began, in wall-clock time and in the process's CPU time (every
   * thread: JIT compilers and GC included, which a Lambda function pays for too; less disturbed than wall time
   * by other load on the machine).
   */
  private static final class PhaseClock implements ProgressListener {
    final AtomicLong planned = new AtomicLong();
    final AtomicLong committing = new AtomicLong();
    final AtomicLong plannedCpu = new AtomicLong();
    final AtomicLong committingCpu = new AtomicLong();
    final AtomicLong inputBytes = new AtomicLong();
    final AtomicLong rows = new AtomicLong();

    static long processCpuNanos() {
      return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
    }

    @Override
    public void planned(PlanSummary summary) {
      planned.set(System.nanoTime());
      plannedCpu.set(processCpuNanos());
      inputBytes.set(summary.inputBytes());
    }

    @Override
    public void groupDone(GroupStatus status, int done, int total) {
      rows.addAndGet(status.inputRows());
    }

    @Override
    public void committing() {
      committing.set(System.nanoTime());
      committingCpu.set(processCpuNanos());
    }
  }
}
