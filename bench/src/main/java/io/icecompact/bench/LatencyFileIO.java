package io.icecompact.bench;

import io.icecompact.core.io.LocalFileIO;
import java.io.IOException;
import java.util.Map;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The local FileIO with an artificial delay on every read request, as object storage has: getting a
 * file's length (a HEAD), opening a stream (a GET) and reading after a seek to another position
 * (S3's stream opens a new ranged GET there) each wait {@code latency-ms}. Writes are not delayed.
 * For the bench only: it shows what reading many small files one request at a time costs, and what
 * the input prefetch wins back.
 */
public class LatencyFileIO extends LocalFileIO {
  /** Catalog property: milliseconds each read request waits. */
  public static final String LATENCY_MS = "bench.latency-ms";

  private long latencyMillis;

  @Override
  public void initialize(Map<String, String> properties) {
    super.initialize(properties);
    latencyMillis = Long.parseLong(properties.getOrDefault(LATENCY_MS, "0"));
  }

  @Override
  public InputFile newInputFile(String location) {
    return new SlowFile(super.newInputFile(location), -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new SlowFile(super.newInputFile(location), length);
  }

  private void request() {
    if (latencyMillis <= 0) {
      return;
    }
    try {
      Thread.sleep(latencyMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class SlowFile implements InputFile {
    private final InputFile file;
    private final long knownLength;

    SlowFile(InputFile file, long knownLength) {
      this.file = file;
      this.knownLength = knownLength;
    }

    @Override
    public long getLength() {
      if (knownLength >= 0) {
        return knownLength;
      }
      request();
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      request();
      SeekableInputStream stream = file.newStream();
      return new SeekableInputStream() {
        private boolean moved;

        @Override
        public long getPos() throws IOException {
          return stream.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          moved |= newPos != stream.getPos();
          stream.seek(newPos);
        }

        @Override
        public int read() throws IOException {
          beforeRead();
          return stream.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          beforeRead();
          return stream.read(b, off, len);
        }

        private void beforeRead() {
          if (moved) {
            moved = false;
            request();
          }
        }

        @Override
        public void close() throws IOException {
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
