package io.icecompact.bench;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The table of issue 27's benchmark: a Flink upsert table (bucket(4, id), 2 writers) loaded, then
 * compacted once by our own rewrite into one big file per bucket, then more checkpoints of upserts
 * in Flink's layout: their equality deletes apply to the big files, next to small new data files.
 */
final class ConvertTable {
  /**
   * The compactions' target: above a bucket's data, so each bucket becomes one file (a ~64 MB file
   * is below the target's 75%, so Iceberg's planner picks it as too small).
   */
  static final String TARGET_FILE_SIZE = Long.toString(128L << 20);

  /**
   * The first compaction's options: every bucket into one file, however few files it has (Iceberg
   * plans a group of fewer than min-input-files = 5 files only when it is big enough).
   */
  static final Map<String, String> FIRST_COMPACTION =
      Map.of("target-file-size-bytes", TARGET_FILE_SIZE, "min-input-files", "1");

  /**
   * A table size: the load ({@code loadCheckpoints} x 2 writers x {@code loadChangesPerWriter}
   * upserts of keys from {@code keySpace}, then compacted), then {@code checkpoints} checkpoints of
   * {@code changesPerWriter} upserts per writer.
   */
  record Size(
      String name,
      int loadCheckpoints,
      int loadChangesPerWriter,
      long keySpace,
      int checkpoints,
      int changesPerWriter) {

    /**
     * The issue's: 16M upserts of keys from 24M (~11.7M live rows, ~64 MB per bucket once
     * compacted), then 60 checkpoints of the {@code upsert} shape's 2 x 10,650 changes.
     */
    static Size issue() {
      return new Size("issue", 16, 500_000, 24_000_000, 60, 10_650);
    }

    /** Seconds to build, for tests: 2 x 2 x 2,000 upserts, then 6 checkpoints of 2 x 200. */
    static Size small() {
      return new Size("s", 2, 2_000, 8_000, 6, 200);
    }

    static Size named(String name) {
      return switch (name) {
        case "issue" -> issue();
        case "s" -> small();
        default -> throw new IllegalArgumentException("Size issue or s, got " + name);
      };
    }

    FlinkUpsertTable.Shape loadShape(int formatVersion) {
      return new FlinkUpsertTable.Shape(
          FlinkUpsertTable.Mode.UPSERT,
          formatVersion,
          loadCheckpoints,
          2,
          4,
          loadChangesPerWriter,
          keySpace,
          false,
          0.0,
          0.09,
          27);
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%s: load %d checkpoints x 2 writers x %,d upserts of keys from %,d, compacted once,"
              + " then %d checkpoints x 2 writers x %,d upserts",
          name,
          loadCheckpoints,
          loadChangesPerWriter,
          keySpace,
          checkpoints,
          changesPerWriter);
    }
  }

  /**
   * The data files the compaction left (count, bytes), the table's layout at the end, and the bytes
   * of its live data files' key column chunks ({@code keyBytes}, from the files' column sizes): the
   * least a conversion that reads the keys of every data file can read.
   */
  record Built(
      long compactedFiles, long compactedBytes, FlinkUpsertTable.Layout layout, long keyBytes) {}

  private ConvertTable() {}

  /**
   * Builds the table in {@code catalog}; {@code compactOnce} compacts it after the load (in a fresh
   * JVM: the load's model of every key stays in this one).
   */
  static Built build(
      Map<String, String> catalog,
      String name,
      Size size,
      int formatVersion,
      Runnable compactOnce) {
    try (TableAccess access = new TableAccess(catalog)) {
      FlinkUpsertTable cdc =
          FlinkUpsertTable.create(
              access.catalog(), TableIdentifier.parse(name), size.loadShape(formatVersion));
      compactOnce.run();
      Table table = cdc.table();
      table.refresh();
      long[] files = EndToEndBench.dataFiles(table);
      for (int i = 0; i < size.checkpoints(); i++) {
        cdc.checkpoint(size.changesPerWriter());
      }
      table.refresh();
      return new Built(files[0], files[1], FlinkUpsertTable.Layout.of(table), keyBytes(table));
    }
  }

  private static long keyBytes(Table table) {
    Set<Integer> key = table.schema().identifierFieldIds();
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        Map<Integer, Long> sizes = task.file().columnSizes();
        for (int id : key) {
          bytes += sizes == null ? 0 : sizes.getOrDefault(id, 0L);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes;
  }
}
