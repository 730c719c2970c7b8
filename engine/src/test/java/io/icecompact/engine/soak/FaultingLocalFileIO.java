package io.icecompact.engine.soak;

import io.icecompact.core.io.LocalFileIO;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * The local warehouse's FileIO ({@code io-impl}) with storage that can fail a chosen file's
 * creation with a connection reset, as S3 does under load. Armed per warehouse (tests run
 * concurrently, each on its own), for paths matching a predicate; fires once. The soak uses it on a
 * job's output files and on the committer's manifests.
 */
public class FaultingLocalFileIO extends LocalFileIO {
  private record Armed(Predicate<String> path, AtomicInteger fired) {}

  private static final Map<String, Armed> ARMED = new ConcurrentHashMap<>();

  /** The next creation of a file under {@code warehouse} whose path matches {@code path} fails. */
  public static void arm(String warehouse, Predicate<String> path) {
    ARMED.put(warehouse, new Armed(path, new AtomicInteger()));
  }

  /** Disarms {@code warehouse}; returns whether its fault fired. */
  public static boolean disarm(String warehouse) {
    Armed armed = ARMED.remove(warehouse);
    return armed != null && armed.fired().get() > 0;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    OutputFile local = super.newOutputFile(location);
    return new OutputFile() {
      @Override
      public PositionOutputStream create() {
        failIfArmed(location);
        return local.create();
      }

      @Override
      public PositionOutputStream createOrOverwrite() {
        failIfArmed(location);
        return local.createOrOverwrite();
      }

      @Override
      public String location() {
        return local.location();
      }

      @Override
      public InputFile toInputFile() {
        return local.toInputFile();
      }
    };
  }

  private static void failIfArmed(String location) {
    String path = location.replaceFirst("^file:", "");
    for (Map.Entry<String, Armed> entry : ARMED.entrySet()) {
      Armed armed = entry.getValue();
      if (path.startsWith(entry.getKey())
          && armed.path().test(path)
          && armed.fired().compareAndSet(0, 1)) {
        throw new UncheckedIOException(
            "injected: cannot create " + location, new SocketException("Connection reset"));
      }
    }
  }
}
