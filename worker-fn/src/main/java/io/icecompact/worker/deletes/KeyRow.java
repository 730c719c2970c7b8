package io.icecompact.worker.deletes;

import org.apache.iceberg.StructLike;

/**
 * A key's values as a struct over a plain array: what the indexes hold for a multi-column key, and
 * what a reader fills, one row after another, to look a row's key up.
 */
public final class KeyRow implements StructLike {
  private final Object[] values;

  /** An empty key of {@code size} columns, to be filled with {@link #set}. */
  public KeyRow(int size) {
    this.values = new Object[size];
  }

  /** A key holding a copy of {@code values}. */
  public static KeyRow of(Object... values) {
    KeyRow key = new KeyRow(values.length);
    System.arraycopy(values, 0, key.values, 0, values.length);
    return key;
  }

  @Override
  public int size() {
    return values.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return javaClass.cast(values[pos]);
  }

  @Override
  public <T> void set(int pos, T value) {
    values[pos] = value;
  }
}
