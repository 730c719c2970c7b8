package io.icecompact.engine.prefetch;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A FileIO that counts the read streams other threads than the reader's own open on the FileIO it
 * wraps, and their declared bytes: what a prefetch has in flight against storage, seen from outside
 * it (the reader's own direct reads are not the prefetch's).
 */
final class CountingFileIO implements FileIO {
  private final FileIO delegate;
  private final Thread reader = Thread.currentThread();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger peakOpen = new AtomicInteger();
  private final AtomicLong openBytes = new AtomicLong();
  private final AtomicLong peakOpenBytes = new AtomicLong();
  private final AtomicInteger streams = new AtomicInteger();

  CountingFileIO(FileIO delegate) {
    this.delegate = delegate;
  }

  int open() {
    return open.get();
  }

  int peakOpen() {
    return peakOpen.get();
  }

  long peakOpenBytes() {
    return peakOpenBytes.get();
  }

  int streams() {
    return streams.get();
  }

  @Override
  public InputFile newInputFile(String location) {
    return new CountedFile(delegate.newInputFile(location), -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new CountedFile(delegate.newInputFile(location, length), length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return delegate.newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  private final class CountedFile implements InputFile {
    private final InputFile file;
    private final long declared;

    CountedFile(InputFile file, long declared) {
      this.file = file;
      this.declared = declared;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      SeekableInputStream stream = file.newStream();
      if (Thread.currentThread() == reader) {
        return stream;
      }
      long bytes = Math.max(0, declared);
      streams.incrementAndGet();
      peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
      peakOpenBytes.accumulateAndGet(openBytes.addAndGet(bytes), Math::max);
      return new SeekableInputStream() {
        private boolean closed;

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
          return stream.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return stream.read(b, off, len);
        }

        @Override
        public void close() throws IOException {
          if (!closed) {
            closed = true;
            open.decrementAndGet();
            openBytes.addAndGet(-bytes);
          }
          stream.close();
        }
      };
    }

    @Override
    public String location() {
      return file.location();
    }

    @Override
    public boolean exists() {
      return file.exists();
    }
  }
}
