package io.icecompact.statemachine;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * S3FileIO whose next write of a file with an armed name prefix times out, as a write to S3 does when a
 * connection stalls: {@code create()} throws an {@link UncheckedIOException} caused by a
 * {@link SocketTimeoutException}. Each armed prefix fails one file, then is disarmed. Set as
 * {@code io-impl} in the catalog properties, so the real handlers use it.
 */
public class FaultInjectingS3FileIO extends S3FileIO {
  private static final Set<String> ARMED = ConcurrentHashMap.newKeySet();
  private static final Set<String> ARMED_SUFFIXES = ConcurrentHashMap.newKeySet();

  /** The next file created whose name starts with {@code fileNamePrefix} fails to be written. */
  static void failNextWrite(String fileNamePrefix) {
    ARMED.add(fileNamePrefix);
  }

  /** The next file created whose location ends with {@code suffix} (e.g. {@code /results/group-00001.json}) fails. */
  static void failNextWriteEndingWith(String suffix) {
    ARMED_SUFFIXES.add(suffix);
  }

  static void disarmAll() {
    ARMED.clear();
    ARMED_SUFFIXES.clear();
  }

  @Override
  public OutputFile newOutputFile(String path) {
    OutputFile file = super.newOutputFile(path);
    String name = path.substring(path.lastIndexOf('/') + 1);
    for (String prefix : ARMED) {
      if (name.startsWith(prefix) && ARMED.remove(prefix)) {
        return new TimingOutFile(file);
      }
    }
    for (String suffix : ARMED_SUFFIXES) {
      if (path.endsWith(suffix) && ARMED_SUFFIXES.remove(suffix)) {
        return new TimingOutFile(file);
      }
    }
    return file;
  }

  private record TimingOutFile(OutputFile file) implements OutputFile {
    @Override
    public PositionOutputStream create() {
      throw timeout();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      throw timeout();
    }

    private UncheckedIOException timeout() {
      return new UncheckedIOException(
          new SocketTimeoutException("injected: write of " + file.location() + " timed out"));
    }

    @Override
    public String location() {
      return file.location();
    }

    @Override
    public InputFile toInputFile() {
      return file.toInputFile();
    }
  }
}
