package io.icecompact.engine;

import java.util.function.Predicate;

/**
 * The local warehouse's FileIO ({@code io-impl}) where reading chosen files runs out of heap, as
 * reading a group too large for the worker's memory does. Armed per warehouse (tests run
 * concurrently, each on its own).
 */
public class OutOfHeapFileIO extends ReadFaultFileIO {
  /**
   * Every read of a file under {@code warehouse} whose path matches {@code path} throws an
   * OutOfMemoryError.
   */
  static void arm(String warehouse, Predicate<String> path) {
    ReadFaultFileIO.arm(warehouse, path, () -> new OutOfMemoryError("Java heap space"));
  }
}
