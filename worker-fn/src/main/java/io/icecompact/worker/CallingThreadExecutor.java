package io.icecompact.worker;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs every task on the thread that submits it. Handed to Iceberg's scan planning so that its
 * futures are already done when Iceberg's {@code Tasks.waitFor} looks, instead of sleeping in 10 ms
 * polls for a shared pool. (Guava's direct executor is not in Iceberg's relocated Guava.)
 */
final class CallingThreadExecutor extends AbstractExecutorService {
  private volatile boolean shutdown;

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }
}
