package io.icecompact.worker.convert;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * An input file that counts the bytes its streams return: what converting a data file really read
 * (the footer and the key columns' chunks Parquet fetched for the projection), not an estimate from
 * column sizes. Hand-written: Iceberg's and Parquet's readers keep no such count. The bench's
 * counting FileIO counts the same way, into its own totals.
 */
public final class CountedInputFile implements InputFile {
  private final InputFile file;
  private final AtomicLong bytesRead;
  private final AtomicLong streamsOpened;

  CountedInputFile(InputFile file) {
    this(file, new AtomicLong(), new AtomicLong());
  }

  /** Counts into {@code bytesRead} and {@code streamsOpened}, which other files may share. */
  public CountedInputFile(InputFile file, AtomicLong bytesRead, AtomicLong streamsOpened) {
    this.file = file;
    this.bytesRead = bytesRead;
    this.streamsOpened = streamsOpened;
  }

  long bytesRead() {
    return bytesRead.get();
  }

  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public String location() {
    return file.location();
  }

  @Override
  public boolean exists() {
    return file.exists();
  }

  @Override
  public SeekableInputStream newStream() {
    streamsOpened.incrementAndGet();
    SeekableInputStream stream = file.newStream();
    return new SeekableInputStream() {
      @Override
      public long getPos() throws IOException {
        return stream.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        stream.seek(newPos);
      }

      @Override
      public int read() throws IOException {
        int value = stream.read();
        if (value >= 0) {
          bytesRead.incrementAndGet();
        }
        return value;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int read = stream.read(buffer, offset, length);
        if (read > 0) {
          bytesRead.addAndGet(read);
        }
        return read;
      }

      @Override
      public void close() throws IOException {
        stream.close();
      }
    };
  }
}
