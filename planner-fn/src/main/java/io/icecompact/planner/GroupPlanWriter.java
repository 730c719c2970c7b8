package io.icecompact.planner;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.util.ThreadPools;

/**
 * Writes the plan's group documents a few at a time while the planner goes on: a thousand S3 PUTs
 * one after another would take the planner tens of seconds. At most {@link #IN_FLIGHT} documents
 * are being serialized or written at once, so the JSON held in memory stays a few groups' worth.
 */
final class GroupPlanWriter implements AutoCloseable {
  static final int THREADS = 8;
  static final int IN_FLIGHT = 2 * THREADS;

  private final JobStore store;
  private final WorkLocation work;
  private final String jobId;
  private final Map<Integer, PartitionSpec> specs;
  private final ExecutorService pool;
  private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
  private final List<Future<PlannedGroup>> entries = new ArrayList<>();

  GroupPlanWriter(
      JobStore store, WorkLocation work, String jobId, Map<Integer, PartitionSpec> specs) {
    this.store = store;
    this.work = work;
    this.jobId = jobId;
    this.specs = specs;
    this.pool = ThreadPools.newFixedThreadPool("icecompact-group-plan-writer", THREADS);
  }

  /** Stores group {@code index}'s document; {@code entry} makes its index entry from the digest. */
  void write(int index, List<FileScanTask> tasks, Function<String, PlannedGroup> entry) {
    inFlight.acquireUninterruptibly();
    entries.add(
        pool.submit(
            () -> {
              try {
                return entry.apply(store.writeGroupPlan(work, jobId, index, tasks, specs));
              } finally {
                inFlight.release();
              }
            }));
  }

  /** Every group's index entry, in the order written; waits for the writes. */
  List<PlannedGroup> entries() {
    List<PlannedGroup> done = new ArrayList<>(entries.size());
    for (Future<PlannedGroup> future : entries) {
      try {
        done.add(future.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PlanIntegrityException("Interrupted while storing the plan's group documents", e);
      } catch (ExecutionException e) {
        // keep the type (e.g. a TransientException for S3 throttling) for Step Functions' Retry
        throw FailureClassifier.classify(
            e.getCause(),
            "Cannot store a group document of job " + jobId,
            PlanIntegrityException::new);
      }
    }
    return done;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
