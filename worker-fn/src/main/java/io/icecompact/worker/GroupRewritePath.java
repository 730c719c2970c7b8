package io.icecompact.worker;

import io.icecompact.core.error.RowCountMismatchException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * One way of rewriting a group's live rows into new data files (the worker's generic and columnar
 * paths). A path only copies rows; {@link #rewrite} does what every path owes its caller: the
 * output holds exactly the rows read minus the rows deleted, and a failed rewrite leaves no output
 * behind.
 */
public interface GroupRewritePath {
  /**
   * {@link RewritePath#COLUMNAR}, {@link RewritePath#ORC_STRIPES} or {@link RewritePath#GENERIC},
   * as the group result records it.
   */
  String name();

  /**
   * Writes the group's live rows into new files from {@code files}. Each file goes to {@code
   * completed} as soon as it is closed, also when a later step then fails: {@link #rewrite} deletes
   * them. A file still open when the path fails is the path's own to abort and delete.
   *
   * @param progress receives the number of input files done so far
   */
  RowCounts write(OutputFileFactory files, Consumer<DataFile> completed, IntConsumer progress);

  /**
   * Rows read from the group's input files, those of them left out as deleted, and the sorted runs
   * (and their bytes) written to local disk to sort them beyond memory: none for a path that sorts
   * in memory or not at all.
   */
  record RowCounts(long read, long deleted, int spilledRuns, long spilledBytes) {
    /** Rows that spilled nothing to sort. */
    public RowCounts(long read, long deleted) {
      this(read, deleted, 0, 0);
    }
  }

  /**
   * Runs {@link #write} and checks that the rows written are the rows read minus the rows deleted.
   * When the write fails or the counts differ, every completed output file is deleted (through
   * {@code io}) before the failure is raised: an output that loses or invents rows is never
   * committed.
   */
  default RewriteOutput rewrite(
      OutputFileFactory files, FileIO io, IntConsumer progress, String reason) {
    List<DataFile> written = new ArrayList<>();
    RowCounts rows;
    boolean failed = true;
    try {
      rows = write(files, written::add, progress);
      failed = false;
    } finally {
      if (failed) {
        deleteQuietly(io, written);
      }
    }
    RewriteOutput output =
        new RewriteOutput(
            written,
            rows.read(),
            rows.deleted(),
            name(),
            reason,
            rows.spilledRuns(),
            rows.spilledBytes());
    long expected = rows.read() - rows.deleted();
    if (output.rowsWritten() != expected) {
      deleteQuietly(io, written);
      throw new RowCountMismatchException(
          String.format(
              "Wrote %d rows but read %d and deleted %d (expected %d written)",
              output.rowsWritten(), rows.read(), rows.deleted(), expected));
    }
    return output;
  }

  private static void deleteQuietly(FileIO io, List<DataFile> files) {
    for (DataFile file : files) {
      try {
        io.deleteFile(file.location());
      } catch (RuntimeException ignored) {
        // an undeletable orphan is left for remove_orphan_files; the failure being raised matters
        // more
      }
    }
  }
}
