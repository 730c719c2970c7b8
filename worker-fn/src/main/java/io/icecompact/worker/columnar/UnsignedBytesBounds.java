package io.icecompact.worker.columnar;

import java.util.Arrays;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveComparator;
import org.apache.parquet.schema.PrimitiveType;

/**
 * The bounds of a page's binary or fixed-length values in unsigned byte order (strings, UUIDs,
 * plain binaries), compared in place in the page's bytes and handed to the page's statistics once:
 * a statistics update per value would wrap each in a Binary and compare it a byte at a time.
 */
final class UnsignedBytesBounds {
  private boolean any;
  private byte[] min;
  private byte[] max;

  private UnsignedBytesBounds() {}

  /** Bounds for a column of this type, or null when its order is not unsigned byte order. */
  static UnsignedBytesBounds forType(PrimitiveType type) {
    return PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR.equals(type.comparator())
        ? new UnsignedBytesBounds()
        : null;
  }

  /** Adds the value in {@code bytes[from, to)}. */
  void add(byte[] bytes, int from, int to) {
    if (!any) {
      any = true;
      min = Arrays.copyOfRange(bytes, from, to);
      max = min;
    } else if (Arrays.compareUnsigned(bytes, from, to, min, 0, min.length) < 0) {
      min = Arrays.copyOfRange(bytes, from, to);
    } else if (Arrays.compareUnsigned(bytes, from, to, max, 0, max.length) > 0) {
      max = Arrays.copyOfRange(bytes, from, to);
    }
  }

  /** Adds the bounds to the page's statistics, and starts the next page's. */
  void addTo(Statistics<?> statistics) {
    if (!any) {
      return;
    }
    any = false;
    statistics.updateStats(Binary.fromConstantByteArray(min));
    statistics.updateStats(Binary.fromConstantByteArray(max));
  }
}
