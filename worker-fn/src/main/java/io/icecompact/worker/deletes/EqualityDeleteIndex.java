package io.icecompact.worker.deletes;

import io.icecompact.core.error.EqualityDeletesTooLargeException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * A group's equality deletes, indexed once: for each key schema and scope (a partition of a spec,
 * or the whole table for deletes written under an unpartitioned spec), each deleted key with the
 * newest data sequence number that deletes it ({@link KeyDeletes}).
 *
 * <p>Iceberg's readers build a set of keys per data file from the delete files that apply to it. In
 * a CDC table every data file has a different list (every equality delete committed after it), so
 * that costs CPU and memory in data files x deleted keys. Here each delete file is read once and
 * each row checks its key against the index of each scope that applies to its file: deleted iff the
 * key's newest delete sequence number is above the file's data sequence number, which is the spec's
 * rule. Which scopes apply to a file is what Iceberg's planning attached to its task; a delete file
 * the planning left out of a file's task (its bounds exclude the file) cannot hold a key of the
 * file, so indexing it as well changes nothing.
 */
public final class EqualityDeleteIndex {
  /** Indexes of one group: none until the group's tasks are indexed. */
  private final Map<Scope, KeyDeletes> indexes;

  private final Map<Integer, PartitionSpec> specs;
  // each delete file object's scope, found once: a CDC table's data file carries thousands of them
  private final Map<DeleteFile, Scope> scopes;
  private final long keys;

  private EqualityDeleteIndex(
      Map<Scope, KeyDeletes> indexes,
      Map<Integer, PartitionSpec> specs,
      Map<DeleteFile, Scope> scopes,
      long keys) {
    this.indexes = indexes;
    this.specs = specs;
    this.scopes = scopes;
    this.keys = keys;
  }

  /**
   * Reads every equality delete file attached to {@code tasks} once and indexes its keys.
   *
   * @param specs the table's partition specs by id
   * @param io reads the delete files
   * @param loader reads the keys of a delete file not in Parquet (Iceberg's loader); it should not
   *     cache them, the index holds them
   * @param maxBytes the heap the index may take; a group whose delete keys would need more is
   *     refused before anything is read
   * @param groupIndex names the group in the refusal
   */
  public static EqualityDeleteIndex of(
      List<FileScanTask> tasks,
      Map<Integer, PartitionSpec> specs,
      Schema tableSchema,
      FileIO io,
      DeleteLoader loader,
      long maxBytes,
      int groupIndex) {
    Map<Scope, Map<String, DeleteFile>> files = new LinkedHashMap<>();
    Map<DeleteFile, Scope> scopes = new IdentityHashMap<>();
    for (FileScanTask task : tasks) {
      for (DeleteFile delete : task.deletes()) {
        if (delete.content() == FileContent.EQUALITY_DELETES && !scopes.containsKey(delete)) {
          Scope scope = Scope.of(delete, specs);
          scopes.put(delete, scope);
          files
              .computeIfAbsent(scope, unused -> new LinkedHashMap<>())
              .putIfAbsent(delete.location(), delete);
        }
      }
    }
    Map<Scope, Long> recordsByScope = new LinkedHashMap<>();
    long records = 0;
    long bytes = 0;
    for (Map.Entry<Scope, Map<String, DeleteFile>> entry : files.entrySet()) {
      long scopeRecords =
          entry.getValue().values().stream().mapToLong(DeleteFile::recordCount).sum();
      recordsByScope.put(entry.getKey(), scopeRecords);
      records += scopeRecords;
      bytes += estimateBytes(entry.getKey().keySchema(tableSchema), scopeRecords);
    }
    if (bytes > maxBytes) {
      throw new EqualityDeletesTooLargeException(groupIndex, records, bytes, maxBytes);
    }
    Map<Scope, KeyDeletes> indexes = new LinkedHashMap<>();
    long keys = 0;
    for (Map.Entry<Scope, Map<String, DeleteFile>> entry : files.entrySet()) {
      Schema keySchema = entry.getKey().keySchema(tableSchema);
      KeyDeletes index = newIndex(keySchema, recordsByScope.get(entry.getKey()));
      for (DeleteFile delete : entry.getValue().values()) {
        long sequence = delete.dataSequenceNumber();
        if (index instanceof LongKeyDeletes longs) {
          DeleteFileKeys.addLongs(delete, keySchema, io, loader, longs, sequence);
        } else {
          DeleteFileKeys.forEach(delete, keySchema, io, loader, key -> index.add(key, sequence));
        }
      }
      if (index instanceof LongKeyDeletes longs) {
        longs.seal();
      }
      indexes.put(entry.getKey(), index);
      keys += index.size();
    }
    return new EqualityDeleteIndex(indexes, specs, scopes, keys);
  }

  /** Distinct keys indexed, over all scopes. */
  public long keys() {
    return keys;
  }

  /** The equality deletes that apply to {@code task}'s file, by key schema. */
  public FileEqualityDeletes forFile(FileScanTask task, Schema tableSchema) {
    Map<Set<Integer>, List<KeyDeletes>> byKey = new LinkedHashMap<>();
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        Scope known = scopes.get(delete); // read only: files may be read on several threads
        Scope scope = known != null ? known : Scope.of(delete, specs);
        KeyDeletes index =
            Objects.requireNonNull(indexes.get(scope), "no index for a delete of the group");
        List<KeyDeletes> applying =
            byKey.computeIfAbsent(scope.keyIds(), unused -> new ArrayList<>());
        if (!applying.contains(index)) {
          applying.add(index);
        }
      }
    }
    List<FileEqualityDeletes.Key> keys = new ArrayList<>();
    byKey.forEach(
        (ids, applying) ->
            keys.add(
                new FileEqualityDeletes.Key(
                    TypeUtil.select(tableSchema, ids), List.copyOf(applying))));
    return new FileEqualityDeletes(task.file().dataSequenceNumber(), keys);
  }

  /** Heap bytes the index of {@code records} delete records on {@code keySchema} may take. */
  static long estimateBytes(Schema keySchema, long records) {
    return switch (Representation.of(keySchema)) {
      case LONGS -> LongKeyDeletes.estimateBytes(records);
      case VALUES -> ValueKeyDeletes.estimateBytes(records);
      case STRUCTS -> StructKeyDeletes.estimateBytes(records, keySchema.columns().size());
    };
  }

  private static KeyDeletes newIndex(Schema keySchema, long records) {
    return switch (Representation.of(keySchema)) {
      case LONGS -> new LongKeyDeletes(records);
      case VALUES -> new ValueKeyDeletes(records);
      case STRUCTS -> new StructKeyDeletes(keySchema.asStruct());
    };
  }

  /** How a key schema's deleted keys are held. */
  private enum Representation {
    LONGS, // one integer-valued column
    VALUES, // one other primitive column
    STRUCTS; // several columns, or a nested one

    static Representation of(Schema keySchema) {
      if (keySchema.columns().size() != 1 || !keySchema.columns().get(0).type().isPrimitiveType()) {
        return STRUCTS;
      }
      return isInteger(keySchema.columns().get(0).type()) ? LONGS : VALUES;
    }
  }

  /** Integer-valued types: held as primitive longs. */
  static boolean isInteger(Type type) {
    return switch (type.typeId()) {
      case INTEGER, DATE, LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> true;
      default -> false;
    };
  }

  /**
   * Which rows a delete can apply to: its key columns, and either every file (written under an
   * unpartitioned spec: a global delete) or the files of its spec and partition.
   */
  private record Scope(Set<Integer> keyIds, int specId, StructLikeWrapper partition) {
    static Scope of(DeleteFile delete, Map<Integer, PartitionSpec> specs) {
      Set<Integer> ids = Set.copyOf(delete.equalityFieldIds());
      PartitionSpec spec = specs.get(delete.specId());
      if (spec == null) {
        throw new IllegalStateException(
            "Equality delete " + delete.location() + " names unknown spec " + delete.specId());
      }
      if (spec.isUnpartitioned()) {
        return new Scope(ids, -1, null);
      }
      StructLikeWrapper partition =
          StructLikeWrapper.forType(spec.partitionType()).set(delete.partition());
      return new Scope(ids, delete.specId(), partition);
    }

    Schema keySchema(Schema tableSchema) {
      return TypeUtil.select(tableSchema, keyIds);
    }
  }
}
