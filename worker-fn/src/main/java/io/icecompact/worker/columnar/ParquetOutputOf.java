package io.icecompact.worker.columnar;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/** parquet-java's view of an Iceberg output file: writes go through the table's {@code FileIO}. */
final class ParquetOutputOf implements OutputFile {
  private final org.apache.iceberg.io.OutputFile file;
  private org.apache.iceberg.io.PositionOutputStream opened;
  private Long finalLength;

  ParquetOutputOf(org.apache.iceberg.io.OutputFile file) {
    this.file = file;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) {
    return wrap(file.create());
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) {
    return wrap(file.createOrOverwrite());
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return file.location();
  }

  /**
   * Buffered: the file writer emits many small writes (page headers through Thrift), and a local
   * file's stream writes each one through.
   */
  /** The file's length once the file writer closed it, or null before. */
  Long finalLength() {
    return finalLength;
  }

  /** Closes the stream after a failure, ignoring errors: the partial file is deleted next. */
  void closeQuietly() {
    if (opened != null && finalLength == null) {
      try {
        opened.close();
      } catch (IOException | RuntimeException ignored) {
        // deleted next
      }
    }
  }

  private PositionOutputStream wrap(org.apache.iceberg.io.PositionOutputStream stream) {
    this.opened = stream;
    return new PositionOutputStream() {
      private final byte[] buffer = new byte[64 * 1024];
      private int buffered;

      @Override
      public long getPos() throws IOException {
        return finalLength != null ? finalLength : stream.getPos() + buffered;
      }

      @Override
      public void write(int b) throws IOException {
        if (buffered == buffer.length) {
          drain();
        }
        buffer[buffered++] = (byte) b;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        if (len > buffer.length - buffered) {
          drain();
          if (len >= buffer.length) {
            stream.write(b, off, len);
            return;
          }
        }
        System.arraycopy(b, off, buffer, buffered, len);
        buffered += len;
      }

      private void drain() throws IOException {
        if (buffered > 0) {
          stream.write(buffer, 0, buffered);
          buffered = 0;
        }
      }

      @Override
      public void flush() throws IOException {
        drain();
        stream.flush();
      }

      @Override
      public void close() throws IOException {
        if (finalLength == null) {
          drain();
          long length = stream.getPos();
          stream.close();
          finalLength = length;
        }
      }
    };
  }
}
