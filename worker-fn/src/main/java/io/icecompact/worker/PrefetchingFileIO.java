package io.icecompact.worker;

import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.FailureClassifier;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A FileIO that reads a group's small input files whole, several at once, ahead of the rewrite.
 *
 * <p>On object storage every small file costs round trips (a footer read, then the column chunks),
 * and a rewrite that reads hundreds of them one after another waits on latency, not bandwidth. This
 * wrapper fetches the files of the group's tasks in the order the rewrite uses them (each task's
 * delete files, then its data file) with at most {@code maxConcurrentRequests} reads running and at
 * most {@code maxBytesInFlight} bytes reserved, and serves them from memory. Files larger than
 * {@code maxFileBytes}, and every other call, go to the wrapped FileIO.
 *
 * <p>Bytes are released once the rewrite has moved past the last task that uses them (it opens data
 * files in task order), so memory stays within the budget whatever the group's size. A file the
 * rewrite asks for before its fetch started is read directly and never fetched; one whose fetch
 * failed raises the failure in the rewrite's thread, typed as a direct read's would be. {@link
 * #close()} stops the fetches and drops every buffer.
 */
public final class PrefetchingFileIO implements FileIO {
  private enum State {
    PENDING,
    FETCHING,
    READY,
    FAILED,
    DIRECT,
    RELEASED
  }

  private static final class Entry {
    final String location;
    final long size;
    final boolean dataFile;
    final int firstUse;
    int lastUse;
    State state = State.PENDING;
    byte[] bytes;
    final CompletableFuture<byte[]> fetched = new CompletableFuture<>();

    Entry(String location, long size, boolean dataFile, int use) {
      this.location = location;
      this.size = size;
      this.dataFile = dataFile;
      this.firstUse = use;
      this.lastUse = use;
    }
  }

  private static final AtomicInteger POOLS = new AtomicInteger();

  private final FileIO delegate;
  private final PrefetchLimits limits;
  private final List<Entry> order;
  private final Map<String, Entry> byLocation;
  private final ExecutorService fetchers;

  // guarded by this
  private int cursor;
  private int position = -1;
  private long reserved;
  private int running;
  private boolean closed;
  private long peakReserved;
  private int peakRunning;
  private int filesPrefetched;
  private long bytesPrefetched;
  private int filesReadDirectly;

  private PrefetchingFileIO(FileIO delegate, PrefetchLimits limits, List<Entry> order) {
    this.delegate = delegate;
    this.limits = limits;
    this.order = order;
    this.byLocation = new HashMap<>();
    order.forEach(entry -> byLocation.put(entry.location, entry));
    int threads =
        order.isEmpty() || !limits.enabled()
            ? 0
            : Math.min(limits.maxConcurrentRequests(), order.size());
    if (threads == 0) {
      fetchers = null;
      return;
    }
    int pool = POOLS.incrementAndGet();
    AtomicInteger names = new AtomicInteger();
    fetchers =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread =
                  new Thread(runnable, "prefetch-" + pool + "-" + names.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    for (int i = 0; i < threads; i++) {
      fetchers.execute(this::fetchLoop);
    }
  }

  /** Starts fetching the small input files of {@code tasks}, in task order. */
  public static PrefetchingFileIO start(
      FileIO delegate, List<FileScanTask> tasks, PrefetchLimits limits) {
    List<Entry> order = new ArrayList<>();
    Map<String, Entry> seen = new HashMap<>();
    for (int use = 0; use < tasks.size(); use++) {
      FileScanTask task = tasks.get(use);
      for (DeleteFile delete : task.deletes()) {
        plan(order, seen, delete, false, use, limits);
      }
      plan(order, seen, task.file(), true, use, limits);
    }
    return new PrefetchingFileIO(delegate, limits, order);
  }

  private static void plan(
      List<Entry> order,
      Map<String, Entry> seen,
      ContentFile<?> file,
      boolean dataFile,
      int use,
      PrefetchLimits limits) {
    Entry known = seen.get(file.location());
    if (known != null) {
      known.lastUse = use; // a delete file shared by several tasks (or DVs sharing a Puffin file)
      return;
    }
    if (!limits.enabled() || file.fileSizeInBytes() > limits.maxFileBytes()) {
      return;
    }
    Entry entry = new Entry(file.location(), file.fileSizeInBytes(), dataFile, use);
    seen.put(entry.location, entry);
    order.add(entry);
  }

  @Override
  public InputFile newInputFile(String location) {
    Entry entry = byLocation.get(location);
    return entry == null
        ? delegate.newInputFile(location)
        : prefetched(entry, () -> delegate.newInputFile(location));
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    Entry entry = byLocation.get(location);
    return entry == null
        ? delegate.newInputFile(location, length)
        : prefetched(entry, () -> delegate.newInputFile(location, length));
  }

  private InputFile prefetched(Entry entry, java.util.function.Supplier<InputFile> direct) {
    CompletableFuture<byte[]> pending;
    synchronized (this) {
      if (closed) {
        return direct.get();
      }
      if (entry.dataFile) {
        advanceTo(entry.firstUse);
      }
      switch (entry.state) {
        case READY:
          return new InMemoryInputFile(entry.location, entry.bytes);
        case FETCHING:
        case FAILED:
          pending = entry.fetched;
          break;
        case PENDING:
          entry.state = State.DIRECT; // never fetched: the rewrite got there first
          filesReadDirectly++;
          return direct.get();
        default: // DIRECT, RELEASED
          filesReadDirectly++;
          return direct.get();
      }
    }
    try {
      return new InMemoryInputFile(entry.location, pending.join());
    } catch (CompletionException e) {
      if (e.getCause() instanceof Error error) {
        throw error; // e.g. the fetch ran out of heap: as a direct read would, not a corrupt file
      }
      throw FailureClassifier.classify(
          e.getCause(), "Cannot read input file " + entry.location, CorruptInputFileException::new);
    }
  }

  /**
   * The rewrite opened a data file of task {@code use}: bytes only earlier tasks needed are freed.
   */
  private void advanceTo(int use) {
    if (use <= position) {
      return;
    }
    position = use;
    for (Entry entry : order) {
      if (entry.state == State.READY && entry.lastUse < position) {
        release(entry);
      }
    }
  }

  private void release(Entry entry) {
    entry.state = State.RELEASED;
    entry.bytes = null;
    reserved -= entry.size;
    notifyAll();
  }

  private void fetchLoop() {
    Entry entry;
    while ((entry = claimNext()) != null) {
      fetch(entry);
    }
  }

  /** The next pending file, once the budget has room for it; null when done or closed. */
  private synchronized Entry claimNext() {
    while (true) {
      if (closed) {
        return null;
      }
      while (cursor < order.size() && order.get(cursor).state != State.PENDING) {
        cursor++;
      }
      if (cursor >= order.size()) {
        return null;
      }
      Entry next = order.get(cursor);
      if (reserved + next.size <= limits.maxBytesInFlight()) {
        cursor++;
        next.state = State.FETCHING;
        reserved += next.size;
        running++;
        peakReserved = Math.max(peakReserved, reserved);
        peakRunning = Math.max(peakRunning, running);
        return next;
      }
      try {
        wait();
      } catch (InterruptedException e) {
        return null; // closing
      }
    }
  }

  private void fetch(Entry entry) {
    byte[] bytes = null;
    Throwable failure = null;
    try (SeekableInputStream in = delegate.newInputFile(entry.location, entry.size).newStream()) {
      bytes = new byte[Math.toIntExact(entry.size)];
      IOUtil.readFully(in, bytes, 0, bytes.length);
    } catch (IOException | RuntimeException | OutOfMemoryError e) {
      // an OutOfMemoryError too: uncaught, it ended this thread with the entry still FETCHING, and
      // the
      // rewrite waiting for the file waited for ever
      failure = e;
    }
    synchronized (this) {
      running--;
      if (failure != null) {
        entry.state = State.FAILED;
        reserved -= entry.size; // nothing is held for a failed file
        notifyAll();
      } else if (closed || entry.lastUse < position) {
        entry.state = State.READY;
        release(entry);
      } else {
        entry.state = State.READY;
        entry.bytes = bytes;
        filesPrefetched++;
        bytesPrefetched += bytes.length;
      }
    }
    if (failure != null) {
      entry.fetched.completeExceptionally(failure);
    } else {
      entry.fetched.complete(bytes);
    }
  }

  public synchronized PrefetchStats stats() {
    return new PrefetchStats(
        filesPrefetched, bytesPrefetched, filesReadDirectly, peakReserved, peakRunning);
  }

  /** The files this wrapper will fetch (below the size limit), for logs and tests. */
  public int plannedFiles() {
    return order.size();
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return delegate.newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  /**
   * Stops the fetches (running reads are interrupted) and drops every buffer; later reads go to the
   * wrapped FileIO, which stays open: it belongs to the caller.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      notifyAll();
    }
    if (fetchers != null) {
      fetchers.shutdownNow();
      try {
        if (!fetchers.awaitTermination(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("Prefetch reads did not stop within 30 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      for (Entry entry : order) {
        if (entry.state == State.READY) {
          release(entry);
        }
      }
    }
  }
}
