package io.icecompact.worker.columnar;

import java.io.File;
import java.io.IOException;
import org.apache.iceberg.Files;
import org.apache.iceberg.encryption.EncryptedFiles;

/** Output files of the columnar path on local disk, for tests of its parts. */
final class LocalColumnarFiles {
  private LocalColumnarFiles() {}

  /**
   * A writer of {@code columns} into {@code file}, with the settings' dictionary and plain
   * encoders.
   */
  static ColumnarFileWriter writer(File file, OutputColumns columns, WriteSettings settings)
      throws IOException {
    return new ColumnarFileWriter(
        EncryptedFiles.plainAsEncryptedOutput(Files.localOutput(file)),
        columns,
        settings,
        settings.properties(true),
        settings.properties(false),
        settings.newCompressor());
  }
}
