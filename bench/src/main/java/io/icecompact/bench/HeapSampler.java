package io.icecompact.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Samples the heap in use every 10 ms: the highest reading, garbage included, bounds the run's
 * working set from above. Run with a small -Xmx to show the run fits in it.
 */
public final class HeapSampler implements Runnable {
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final Thread thread = new Thread(this, "heap-sampler");
  private volatile boolean running = true;
  private long peak;

  public static HeapSampler start() {
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

  /** Stops sampling; returns the peak in bytes. */
  public long stop() {
    running = false;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Math.max(peak, memory.getHeapMemoryUsage().getUsed());
  }
}
