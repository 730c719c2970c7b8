package io.icecompact.engine;

import io.icecompact.core.io.LocalFileIO;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The local warehouse's FileIO ({@code io-impl}) where reading chosen files fails, with the failure
 * a test chooses: out of heap, as reading a group too large for the worker's memory does ({@link
 * OutOfHeapFileIO}), or a connection reset, as S3 does under load. Armed per warehouse (tests run
 * concurrently, each on its own).
 */
public class ReadFaultFileIO extends LocalFileIO {
  private record Armed(Predicate<String> path, Supplier<? extends Throwable> failure) {}

  private static final Map<String, Armed> ARMED = new ConcurrentHashMap<>();

  /**
   * Every read of a file under {@code warehouse} whose path matches {@code path} throws what {@code
   * failure} makes (a RuntimeException or an Error).
   */
  static void arm(String warehouse, Predicate<String> path, Supplier<? extends Throwable> failure) {
    ARMED.put(warehouse, new Armed(path, failure));
  }

  static void disarm(String warehouse) {
    ARMED.remove(warehouse);
  }

  @Override
  public InputFile newInputFile(String location) {
    InputFile local = super.newInputFile(location);
    Optional<Armed> fault =
        ARMED.entrySet().stream()
            .filter(
                armed ->
                    location.contains(armed.getKey()) && armed.getValue().path().test(location))
            .map(Map.Entry::getValue)
            .findFirst();
    if (fault.isEmpty()) {
      return local;
    }
    return new InputFile() {
      @Override
      public long getLength() {
        return local.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        Throwable failure = fault.get().failure().get();
        if (failure instanceof Error error) {
          throw error;
        }
        throw (RuntimeException) failure;
      }

      @Override
      public String location() {
        return local.location();
      }

      @Override
      public boolean exists() {
        return local.exists();
      }
    };
  }
}
