package io.icecompact.worker.columnar;

import java.io.IOException;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * parquet-java's view of an Iceberg input file, so reads go through the table's {@code FileIO}
 * (S3FileIO on AWS) rather than Hadoop paths. Iceberg has the same adapter, but package-private.
 */
final class ParquetInputOf implements InputFile {
  private final org.apache.iceberg.io.InputFile file;

  ParquetInputOf(org.apache.iceberg.io.InputFile file) {
    this.file = file;
  }

  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
    return new DelegatingSeekableInputStream(stream) {
      @Override
      public long getPos() throws IOException {
        return stream.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        stream.seek(newPos);
      }
    };
  }

  @Override
  public String toString() {
    return file.location();
  }
}
