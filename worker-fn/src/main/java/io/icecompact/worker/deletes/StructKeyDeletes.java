package io.icecompact.worker.deletes;

import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Deleted keys of several columns: Iceberg's own struct map, which hashes a key with the type's
 * hash and compares colliding keys field by field with the type's comparators (so equality is
 * exactly Iceberg's).
 */
public final class StructKeyDeletes implements KeyDeletes {
  private final StructLikeMap<Long> sequences;
  private final Types.StructType keyType;

  StructKeyDeletes(Types.StructType keyType) {
    this.keyType = keyType;
    this.sequences = StructLikeMap.create(keyType);
  }

  /**
   * Heap bytes for {@code keys} keys: map entry, wrapper, record and boxed fields, per field ~40.
   */
  static long estimateBytes(long keys, int fields) {
    return keys * (160 + 40L * fields);
  }

  @Override
  public void add(StructLike key, long sequence) {
    Long known = sequences.get(key);
    if (known == null || known < sequence) {
      sequences.put(copy(key), sequence);
    }
  }

  @Override
  public long newestSequence(StructLike key) {
    Long sequence = sequences.get(key);
    return sequence == null ? NONE : sequence;
  }

  @Override
  public int size() {
    return sequences.size();
  }

  /** The map keeps the key it is given: a key read into a reused struct must be copied. */
  private StructLike copy(StructLike key) {
    Object[] values = new Object[keyType.fields().size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = key.get(i, Object.class);
    }
    return KeyRow.of(values);
  }
}
