package io.icecompact.worker.deletes;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;

/**
 * A group's deletes, each delete file read once, on the worker's own thread: position deletes and
 * deletion vectors through Iceberg's loader, equality deletes into one {@link EqualityDeleteIndex}
 * for the group.
 *
 * <p>Iceberg's default loader reads delete files again for every data file (a delete file usually
 * applies to every file of its partition) and hands the reads to a shared pool whose waiter polls
 * every 10 ms; on groups of small files that waiting dominated the rewrite. Caching is bounded:
 * only position delete files smaller than {@link #MAX_CACHED_BYTES} (Iceberg's own size estimate)
 * are cached, and the equality index refuses a group whose keys would take more than a quarter of
 * the heap.
 */
public final class GroupDeleteLoader extends BaseDeleteLoader {
  static final long MAX_CACHED_BYTES = 256L * 1024 * 1024;

  private final Map<String, Object> cache = new ConcurrentHashMap<>();
  private final Table table;
  private final List<FileScanTask> tasks;
  private final int groupIndex;
  private final long maxIndexBytes;
  private EqualityDeleteIndex equalityDeletes;

  /**
   * @param tasks the group's files, whose equality deletes are indexed on first use
   * @param groupIndex names the group when its equality deletes are refused
   */
  public GroupDeleteLoader(Table table, List<FileScanTask> tasks, int groupIndex) {
    super(deleteFile -> table.io().newInputFile(deleteFile.location()), null);
    this.table = table;
    this.tasks = tasks;
    this.groupIndex = groupIndex;
    this.maxIndexBytes = Runtime.getRuntime().maxMemory() / 4;
  }

  @Override
  protected boolean canCache(long size) {
    return size < MAX_CACHED_BYTES;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected <V> V getOrLoad(String key, Supplier<V> valueSupplier, long valueSize) {
    return (V) cache.computeIfAbsent(key, unused -> valueSupplier.get());
  }

  /**
   * The group's equality deletes, indexed on first use (each delete file read once, not cached
   * here).
   */
  public synchronized EqualityDeleteIndex equalityDeletes() {
    if (equalityDeletes == null) {
      FileIO io = table.io();
      DeleteLoader uncached =
          new BaseDeleteLoader(deleteFile -> io.newInputFile(deleteFile.location()), null);
      equalityDeletes =
          EqualityDeleteIndex.of(
              tasks, table.specs(), table.schema(), io, uncached, maxIndexBytes, groupIndex);
    }
    return equalityDeletes;
  }

  /**
   * Iceberg's delete filter for the file's position deletes and deletion vectors, reading them
   * through this loader; equality deletes are left to {@link #equalityDeletes()}.
   */
  public DeleteFilter<Record> positionFilterFor(
      FileScanTask task, Schema tableSchema, Schema projection) {
    List<DeleteFile> positional =
        task.deletes().stream()
            .filter(delete -> delete.content() == FileContent.POSITION_DELETES)
            .toList();
    DeleteLoader loader = this;
    FileIO io = table.io();
    return new DeleteFilter<>(task.file().location(), positional, tableSchema, projection) {
      private InternalRecordWrapper wrapper;

      @Override
      protected StructLike asStructLike(Record record) {
        if (wrapper == null) {
          wrapper = new InternalRecordWrapper(requiredSchema().asStruct());
        }
        return wrapper.wrap(record);
      }

      @Override
      protected InputFile getInputFile(String location) {
        return io.newInputFile(location);
      }

      @Override
      protected DeleteLoader newDeleteLoader() {
        return loader;
      }
    };
  }
}
