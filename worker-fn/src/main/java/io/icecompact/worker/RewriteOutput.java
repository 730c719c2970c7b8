package io.icecompact.worker;

import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * What one rewrite of a group produced, with the counts that prove no row was lost or invented.
 *
 * @param path {@link RewritePath#COLUMNAR}, {@link RewritePath#ORC_STRIPES} or {@link
 *     RewritePath#GENERIC}
 * @param pathReason why the group took that path
 * @param spilledRuns sorted runs written to local disk to sort the group beyond memory (0 if none)
 * @param spilledBytes their bytes
 */
public record RewriteOutput(
    List<DataFile> dataFiles,
    long rowsRead,
    long rowsDeleted,
    String path,
    String pathReason,
    int spilledRuns,
    long spilledBytes) {
  public RewriteOutput {
    dataFiles = List.copyOf(dataFiles);
  }

  public long rowsWritten() {
    return dataFiles.stream().mapToLong(DataFile::recordCount).sum();
  }

  public long bytesWritten() {
    return dataFiles.stream().mapToLong(DataFile::fileSizeInBytes).sum();
  }
}
