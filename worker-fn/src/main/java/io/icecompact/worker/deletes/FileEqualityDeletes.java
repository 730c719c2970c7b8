package io.icecompact.worker.deletes;

import java.util.List;
import java.util.function.Predicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.util.StructProjection;

/**
 * The equality deletes that apply to one data file: per key schema, the indexes of the scopes
 * attached to its task, and the file's data sequence number they are compared with.
 */
public final class FileEqualityDeletes {
  /** One key schema's indexes for the file. */
  public record Key(Schema keySchema, List<KeyDeletes> indexes) {
    /**
     * Whether a delete newer than {@code fileSequence} holds {@code key} (Iceberg's internal
     * values).
     */
    public boolean deletes(StructLike key, long fileSequence) {
      for (KeyDeletes index : indexes) {
        if (index.newestSequence(key) > fileSequence) {
          return true;
        }
      }
      return false;
    }
  }

  private final long fileSequence;
  private final List<Key> keys;

  FileEqualityDeletes(long fileSequence, List<Key> keys) {
    this.fileSequence = fileSequence;
    this.keys = keys;
  }

  /**
   * The data file's data sequence number: a key deleted at a higher one is deleted in this file.
   */
  public long fileSequence() {
    return fileSequence;
  }

  public List<Key> keys() {
    return keys;
  }

  public boolean isEmpty() {
    return keys.isEmpty();
  }

  /**
   * Which rows are deleted, for rows of {@code rowSchema} in Iceberg's internal values (an {@code
   * InternalRecordWrapper} around a generic record). Not thread-safe: it reuses one projection per
   * key.
   */
  public Predicate<StructLike> deletedRows(Schema rowSchema) {
    int count = keys.size();
    StructProjection[] projections = new StructProjection[count];
    for (int k = 0; k < count; k++) {
      projections[k] = StructProjection.create(rowSchema, keys.get(k).keySchema());
    }
    return row -> {
      for (int k = 0; k < count; k++) {
        if (keys.get(k).deletes(projections[k].wrap(row), fileSequence)) {
          return true;
        }
      }
      return false;
    };
  }
}
