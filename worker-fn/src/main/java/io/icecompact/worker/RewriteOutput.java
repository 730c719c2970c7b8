package io.icecompact.worker;

import java.util.List;
import org.apache.iceberg.DataFile;

/** What one pass over a group produced, with the counts that prove no row was lost or invented. */
record RewriteOutput(
    List<DataFile> dataFiles, long rowsRead, long rowsDeleted, String path, String pathReason) {
  long rowsWritten() {
    return dataFiles.stream().mapToLong(DataFile::recordCount).sum();
  }

  long bytesWritten() {
    return dataFiles.stream().mapToLong(DataFile::fileSizeInBytes).sum();
  }
}
