package io.icecompact.worker.columnar;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.GroupRewriteException;
import java.io.IOException;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.parquet.column.ParquetProperties;

/**
 * The group's output files, one open at a time: a row group ends at the table's row-group size, a
 * file at the target file size (checked between slices), as the generic path's writer rolls them.
 * Each closed file goes to {@code completed}; the open one is this roller's to abort and delete.
 */
final class OutputFileRoller {
  private final FileIO io;
  private final OutputFileFactory files;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final MetricsConfig metricsConfig;
  private final OutputColumns columns;
  private final WriteSettings settings;
  private final ParquetProperties dictionaryOn;
  private final ParquetProperties dictionaryOff;
  private final PageCompressor compressor;
  private final long targetFileSize;
  private final Consumer<DataFile> completed;
  private ColumnarFileWriter open;

  OutputFileRoller(
      FileIO io,
      OutputFileFactory files,
      PartitionSpec spec,
      StructLike partition,
      MetricsConfig metricsConfig,
      OutputColumns columns,
      WriteSettings settings,
      PageCompressor compressor,
      long targetFileSize,
      Consumer<DataFile> completed) {
    this.io = io;
    this.files = files;
    this.spec = spec;
    this.partition = partition;
    this.metricsConfig = metricsConfig;
    this.columns = columns;
    this.settings = settings;
    this.dictionaryOn = settings.properties(true);
    this.dictionaryOff = settings.properties(false);
    this.compressor = compressor;
    this.targetFileSize = targetFileSize;
    this.completed = completed;
  }

  /** The open output file, created on first use. */
  ColumnarFileWriter current() {
    if (open == null) {
      try {
        open =
            new ColumnarFileWriter(
                files.newOutputFile(spec, partition),
                columns,
                settings,
                dictionaryOn,
                dictionaryOff,
                compressor);
      } catch (IOException | RuntimeException e) {
        throw FailureClassifier.classify(
            e, "Cannot create output file", GroupRewriteException::new);
      }
    }
    return open;
  }

  /** Ends the row group at the table's row-group size, and the file at the target file size. */
  void afterSlice() {
    if (open == null) {
      return;
    }
    try {
      if (open.estimatedLength() >= targetFileSize) {
        closeOpen();
      } else if (open.rowGroupBytes() >= settings.rowGroupSize) {
        open.flushRowGroup();
      }
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(e, "Cannot write output file", GroupRewriteException::new);
    }
  }

  /** Closes the open file, if any. */
  void finish() {
    try {
      if (open != null) {
        closeOpen();
      }
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(e, "Cannot finish output file", GroupRewriteException::new);
    }
  }

  /** After a failure: aborts the open file and deletes it. */
  void abort() {
    if (open != null) {
      open.abort();
      deleteQuietly(open.location());
      open = null;
    }
  }

  private void closeOpen() throws IOException {
    ColumnarFileWriter closing = open;
    open = null;
    if (closing.rows() == 0 && closing.rowGroupBytes() == 0) {
      closing.abort();
      io.deleteFile(closing.location());
      return;
    }
    DataFile file;
    try {
      file = closing.close(spec, partition, metricsConfig);
    } catch (IOException | RuntimeException e) {
      closing.abort();
      deleteQuietly(closing.location());
      throw e;
    }
    completed.accept(file);
  }

  private void deleteQuietly(String location) {
    try {
      io.deleteFile(location);
    } catch (RuntimeException ignored) {
      // an undeletable orphan is left for remove_orphan_files; the failure being raised matters
      // more
    }
  }
}
