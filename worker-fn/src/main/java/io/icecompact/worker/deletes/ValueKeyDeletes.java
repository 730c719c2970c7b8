package io.icecompact.worker.deletes;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.StructLike;

/**
 * Deleted keys of one column that is not integer-valued (strings, binary, decimals, UUIDs, floats):
 * the values themselves in a hash map. Same equality as Iceberg's struct sets: strings compare as
 * strings whatever their CharSequence class, binary by content, NaN equals NaN, a null key deletes
 * null values.
 */
public final class ValueKeyDeletes implements KeyDeletes {
  private final Map<Object, Long> sequences;
  private long nullSequence = NONE;

  ValueKeyDeletes(long expectedKeys) {
    this.sequences = new HashMap<>((int) Math.min(1 << 26, expectedKeys * 4 / 3 + 16));
  }

  /**
   * Heap bytes for {@code keys} keys: a map entry, a boxed sequence and the value (a short string,
   * say).
   */
  static long estimateBytes(long keys) {
    return keys * 120;
  }

  @Override
  public void add(StructLike key, long sequence) {
    Object value = key.get(0, Object.class);
    if (value == null) {
      nullSequence = Math.max(nullSequence, sequence);
    } else {
      sequences.merge(normal(value), sequence, Math::max);
    }
  }

  @Override
  public long newestSequence(StructLike key) {
    return newestSequence(key.get(0, Object.class));
  }

  /** The newest delete sequence number of {@code value} (null: of the null key). */
  public long newestSequence(Object value) {
    if (value == null) {
      return nullSequence;
    }
    Long sequence = sequences.get(normal(value));
    return sequence == null ? NONE : sequence;
  }

  @Override
  public int size() {
    return sequences.size() + (nullSequence == NONE ? 0 : 1);
  }

  private static Object normal(Object value) {
    return value instanceof CharSequence chars && !(value instanceof String)
        ? chars.toString()
        : value;
  }
}
