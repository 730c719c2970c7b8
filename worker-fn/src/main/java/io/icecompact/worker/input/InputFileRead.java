package io.icecompact.worker.input;

import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.IcecompactException;
import io.icecompact.core.error.RowCountMismatchException;
import io.icecompact.core.error.UnsupportedFileFormatException;
import java.io.IOException;
import org.apache.iceberg.FileScanTask;

/**
 * What both rewrite paths owe each input data file they read: a failure to read it is typed as the
 * file's ({@link CorruptInputFileException}, or transient when the environment failed; {@link
 * UnsupportedFileFormatException} when no reader of its format is registered), unless the path
 * already typed it; and every row its metadata counts was read, else {@link
 * RowCountMismatchException}.
 */
public final class InputFileRead {
  private InputFileRead() {}

  /** The rows a path read from one file, and how many of them it kept (the others were deleted). */
  public record Rows(long read, long kept) {
    public long deleted() {
      return read - kept;
    }
  }

  /** One file's copy: opens, reads and closes the file, and counts its rows. */
  @FunctionalInterface
  public interface Copy {
    Rows run() throws IOException;
  }

  /**
   * Runs {@code copy} of {@code task}'s data file, typing its failures and checking its rows read.
   */
  public static Rows checked(FileScanTask task, Copy copy) {
    String location = task.file().location();
    Rows rows;
    try {
      rows = copy.run();
    } catch (IcecompactException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      UnsupportedFileFormatException unsupported = UnsupportedFileFormatException.in(e, location);
      if (unsupported != null) {
        throw unsupported; // not "corrupt": the file is fine, this build cannot read its format
      }
      throw FailureClassifier.classify(
          e, "Cannot rewrite data file " + location, CorruptInputFileException::new);
    }
    if (rows.read() != task.file().recordCount()) {
      throw new RowCountMismatchException(
          String.format(
              "Read %d rows from %s but its metadata says %d",
              rows.read(), location, task.file().recordCount()));
    }
    return rows;
  }
}
