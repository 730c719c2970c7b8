package io.icecompact.worker;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.io.FileIO;

/**
 * Loads each delete file once per group, on the worker's own thread.
 *
 * <p>Iceberg's default loader reads delete files again for every data file (an equality delete file
 * usually applies to every file of its partition) and hands the reads to a shared pool whose waiter
 * polls every 10 ms; on groups of small files that waiting dominated the rewrite. Caching is bounded:
 * a group holds at most {@code max-file-group-size-bytes} of data, and only delete files smaller than
 * {@link #MAX_CACHED_BYTES} (Iceberg's own size estimate) are cached.
 */
final class GroupDeleteLoader extends BaseDeleteLoader {
  static final long MAX_CACHED_BYTES = 256L * 1024 * 1024;

  private final Map<String, Object> cache = new ConcurrentHashMap<>();

  GroupDeleteLoader(FileIO io) {
    super(deleteFile -> io.newInputFile(deleteFile.location()), null);
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

  /** Iceberg's delete filter for one file, reading deletes through this group's loader. */
  GenericDeleteFilter filterFor(FileIO io, FileScanTask task, Schema tableSchema, Schema projection) {
    DeleteLoader loader = this;
    return new GenericDeleteFilter(io, task, tableSchema, projection) {
      @Override
      protected DeleteLoader newDeleteLoader() {
        return loader;
      }
    };
  }
}
