package io.icecompact.core.rewrite;

import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * What one rewrite of a group produced, with the counts that prove no row was lost or invented.
 *
 * @param path {@link RewritePath#COLUMNAR} or {@link RewritePath#GENERIC}
 * @param pathReason why the group took that path
 * @param spilledBytes bytes written to local disk to sort the group beyond memory (0 if none)
 */
public record RewriteOutput(
    List<DataFile> dataFiles, long rowsRead, long rowsDeleted, String path, String pathReason, long spilledBytes) {
  public RewriteOutput {
    dataFiles = List.copyOf(dataFiles);
  }

  /** An output that spilled nothing. */
  public RewriteOutput(List<DataFile> dataFiles, long rowsRead, long rowsDeleted, String path, String pathReason) {
    this(dataFiles, rowsRead, rowsDeleted, path, pathReason, 0);
  }

  /** This output, saying it spilled {@code bytes} to sort beyond memory. */
  public RewriteOutput withSpilledBytes(long bytes) {
    return new RewriteOutput(dataFiles, rowsRead, rowsDeleted, path, pathReason, bytes);
  }

  public long rowsWritten() {
    return dataFiles.stream().mapToLong(DataFile::recordCount).sum();
  }

  public long bytesWritten() {
    return dataFiles.stream().mapToLong(DataFile::fileSizeInBytes).sum();
  }
}
