package io.icecompact.cli.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A streaming writer: a checkpoint of a {@link FlinkUpsertTable} committed every {@code everyMillis} (back to
 * back when committing one takes longer), as a Flink job with that checkpoint interval commits: its writers
 * write the next checkpoint's files (one thread, up to two checkpoints ahead) while its committer (another
 * thread) commits on the interval's ticks. It records when each commit ended, so a race with a compaction can
 * be told apart from a lucky gap.
 */
public final class StreamingWriter implements AutoCloseable {
  private final FlinkUpsertTable cdc;
  private final long everyMillis;
  private final int changesPerWriter;
  private final List<Long> commitEndNanos = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> commitMillis = Collections.synchronizedList(new ArrayList<>());
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final BlockingQueue<FlinkUpsertTable.Written> written = new ArrayBlockingQueue<>(2);
  private final Thread writerThread;
  private final Thread thread;
  private volatile boolean stopping;

  public StreamingWriter(FlinkUpsertTable cdc, long everyMillis, int changesPerWriter) {
    this.cdc = cdc;
    this.everyMillis = everyMillis;
    this.changesPerWriter = changesPerWriter;
    this.writerThread = new Thread(this::write, "streaming-writer-files");
    this.writerThread.setDaemon(true);
    this.thread = new Thread(this::commit, "streaming-writer-commits");
    this.thread.setDaemon(true);
  }

  public StreamingWriter start() {
    writerThread.start();
    thread.start();
    return this;
  }

  private void write() {
    try {
      while (!stopping) {
        FlinkUpsertTable.Written checkpoint = cdc.write(changesPerWriter);
        // handed over even when stopping: the model already holds its changes, so it must be committed
        while (!written.offer(checkpoint, 10, TimeUnit.MILLISECONDS)) {
          if (failure.get() != null) {
            return;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  private void commit() {
    long next = System.nanoTime();
    try {
      while (writerThread.isAlive() || !written.isEmpty()) {
        FlinkUpsertTable.Written checkpoint = written.poll(10, TimeUnit.MILLISECONDS);
        if (checkpoint == null) {
          if (failure.get() != null) {
            return;
          }
          continue;
        }
        next += everyMillis * 1_000_000;
        long sleep = (next - System.nanoTime()) / 1_000_000;
        if (sleep > 0) {
          Thread.sleep(sleep);
        } else {
          next = System.nanoTime(); // behind: no burst to catch up, as a checkpoint interval does not
        }
        long started = System.nanoTime();
        cdc.commit(checkpoint);
        long ended = System.nanoTime();
        commitEndNanos.add(ended);
        commitMillis.add((ended - started) / 1_000_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  /** Commits made so far. */
  public int commits() {
    return commitEndNanos.size();
  }

  /** Commits that ended after {@code fromNanos} ({@link System#nanoTime}) and up to {@code toNanos}. */
  public int commitsBetween(long fromNanos, long toNanos) {
    synchronized (commitEndNanos) {
      return (int) commitEndNanos.stream().filter(t -> t - fromNanos > 0 && t - toNanos <= 0).count();
    }
  }

  /** Blocks until {@code count} commits were made in all; fails if the writer did. */
  public void awaitCommits(int count) throws InterruptedException {
    while (commits() < count) {
      rethrowFailure();
      Thread.sleep(5);
    }
  }

  /** The median commit (the writer's own attempts and retries, not writing its files), in milliseconds. */
  public long medianCommitMillis() {
    synchronized (commitMillis) {
      return median(new ArrayList<>(commitMillis));
    }
  }

  /** The median time between two commits' ends, in milliseconds: how often the table's metadata changed. */
  public long medianSpacingMillis() {
    List<Long> gaps = new ArrayList<>();
    synchronized (commitEndNanos) {
      for (int i = 1; i < commitEndNanos.size(); i++) {
        gaps.add((commitEndNanos.get(i) - commitEndNanos.get(i - 1)) / 1_000_000);
      }
    }
    return median(gaps);
  }

  private static long median(List<Long> values) {
    if (values.isEmpty()) {
      return 0;
    }
    Collections.sort(values);
    return values.get(values.size() / 2);
  }

  /** Stops after the checkpoint in progress; rethrows what made the writer fail, if anything did. */
  @Override
  public void close() throws InterruptedException {
    stopping = true;
    writerThread.join();
    thread.join(); // commits every checkpoint written: the model holds their changes
    rethrowFailure();
  }

  private void rethrowFailure() {
    Throwable e = failure.get();
    if (e != null) {
      throw new IllegalStateException("The streaming writer failed after " + commits() + " commits", e);
    }
  }
}
