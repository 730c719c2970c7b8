package io.icecompact.worker.columnar;

import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.FailureClassifier;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.FileIO;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Reads the footers of a group's data files, several at once: on object storage each is two small
 * round trips, and reading hundreds of them one at a time is latency-bound.
 */
final class FooterReader {
  /** Footer reads in flight at once. */
  private static final int CONCURRENT_READS = 8;

  private final FileIO io;
  private final ParquetReadOptions options = ReadOptions.builder().build();

  FooterReader(FileIO io) {
    this.io = io;
  }

  /** The footers of the tasks' files, in task order. */
  List<ParquetMetadata> readAll(List<FileScanTask> tasks) {
    if (tasks.size() == 1) {
      return List.of(read(tasks.get(0)));
    }
    ExecutorService readers =
        Executors.newFixedThreadPool(
            Math.min(CONCURRENT_READS, tasks.size()),
            runnable -> {
              Thread thread = new Thread(runnable, "footer-read");
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<ParquetMetadata>> pending = new ArrayList<>(tasks.size());
      for (FileScanTask task : tasks) {
        pending.add(readers.submit(() -> read(task)));
      }
      List<ParquetMetadata> footers = new ArrayList<>(tasks.size());
      for (Future<ParquetMetadata> footer : pending) {
        footers.add(footer.get());
      }
      return footers;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime; // already typed by read
      }
      if (e.getCause() instanceof Error error) {
        throw error; // e.g. OutOfMemoryError: not ours to wrap
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading footers", e);
    } finally {
      readers.shutdownNow();
    }
  }

  private ParquetMetadata read(FileScanTask task) {
    String location = task.file().location();
    ParquetInputOf file =
        new ParquetInputOf(io.newInputFile(location, task.file().fileSizeInBytes()));
    try (SeekableInputStream stream = file.newStream()) {
      return ParquetFileReader.readFooter(file, options, stream);
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot rewrite data file " + location, CorruptInputFileException::new);
    }
  }
}
