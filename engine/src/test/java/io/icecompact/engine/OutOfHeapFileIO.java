package io.icecompact.engine;

import io.icecompact.core.io.LocalFileIO;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The local warehouse's FileIO ({@code io-impl}) where reading chosen files runs out of heap, as reading a group
 * too large for the worker's memory does. Armed per warehouse (tests run concurrently, each on its own).
 */
public class OutOfHeapFileIO extends LocalFileIO {
  private static final Map<String, Predicate<String>> ARMED = new ConcurrentHashMap<>();

  /** Every read of a file under {@code warehouse} whose path matches {@code path} throws an OutOfMemoryError. */
  static void arm(String warehouse, Predicate<String> path) {
    ARMED.put(warehouse, path);
  }

  static void disarm(String warehouse) {
    ARMED.remove(warehouse);
  }

  @Override
  public InputFile newInputFile(String location) {
    InputFile local = super.newInputFile(location);
    boolean outOfHeap = ARMED.entrySet().stream()
        .anyMatch(armed -> location.contains(armed.getKey()) && armed.getValue().test(location));
    if (!outOfHeap) {
      return local;
    }
    return new InputFile() {
      @Override
      public long getLength() {
        return local.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        throw new OutOfMemoryError("Java heap space");
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
