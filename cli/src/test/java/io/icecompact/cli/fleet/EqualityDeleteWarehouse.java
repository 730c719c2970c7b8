package io.icecompact.cli.fleet;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Two Flink upsert tables (v2, equality deletes on every checkpoint but the first) in namespace
 * {@code cdc}: {@link #SMALL} keeps Iceberg's 512 MB target, so its few-kilobyte files are small;
 * {@link #SIZED} gets a {@code write.target-file-size-bytes} just above the mean size of the data
 * files its equality deletes apply to, so they count as at target.
 */
public final class EqualityDeleteWarehouse {
  public static final String SMALL = "cdc.small";
  public static final String SIZED = "cdc.sized";

  private EqualityDeleteWarehouse() {}

  public static void build(Path warehouse) {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      FlinkUpsertTable.Shape shape =
          FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false);
      FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(SMALL), shape);
      Table sized =
          FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(SIZED), shape).table();
      Expected expected = Expected.of(sized, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
      // the mean is 90% of the target: at target by the decision tree's 75%
      long target = Math.round(expected.dataBytes() / (double) expected.dataFiles() / 0.9);
      sized
          .updateProperties()
          .set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(target))
          .commit();
    }
  }

  /**
   * The figures of docs/fleet.md's equality-delete estimate, computed independently of icecompact:
   * from Iceberg's own scan, which matches every delete file to the data files it applies to.
   *
   * @param partitionBytes data bytes per partition of the data files equality deletes apply to
   */
  public record Expected(
      long equalityDeleteFiles,
      long equalityKeys,
      long dataFiles,
      long dataBytes,
      long dataRows,
      long keyColumnBytes,
      long deleteFiles,
      long deleteBytes,
      Map<String, Long> partitionBytes,
      long target) {

    public static Expected of(Table table, long target) {
      Map<String, DeleteFile> equality = new HashMap<>();
      Map<String, DeleteFile> deletes = new HashMap<>();
      Map<String, Long> partitionBytes = new HashMap<>();
      Set<String> dataFiles = new HashSet<>();
      long dataBytes = 0;
      long rows = 0;
      long keyBytes = 0;
      Set<Integer> keyIds = table.schema().identifierFieldIds();
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().includeColumnStats().planFiles()) {
        for (FileScanTask task : tasks) {
          List<DeleteFile> eq =
              task.deletes().stream()
                  .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
                  .toList();
          if (eq.isEmpty() || !dataFiles.add(task.file().location())) {
            continue;
          }
          eq.forEach(d -> equality.put(d.location(), d));
          // a deletion vector is one blob of a Puffin file shared with others
          task.deletes()
              .forEach(
                  d ->
                      deletes.put(
                          ContentFileUtil.isDV(d)
                              ? d.location() + "#" + d.contentOffset()
                              : d.location(),
                          d));
          dataBytes += task.file().fileSizeInBytes();
          rows += task.file().recordCount();
          for (int id : keyIds) {
            keyBytes += task.file().columnSizes().get(id);
          }
          partitionBytes.merge(
              table.specs().get(task.file().specId()).partitionToPath(task.file().partition()),
              task.file().fileSizeInBytes(),
              Long::sum);
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return new Expected(
          equality.size(),
          equality.values().stream().mapToLong(DeleteFile::recordCount).sum(),
          dataFiles.size(),
          dataBytes,
          rows,
          keyBytes,
          deletes.size(),
          deletes.values().stream()
              .mapToLong(
                  d -> ContentFileUtil.isDV(d) ? d.contentSizeInBytes() : d.fileSizeInBytes())
              .sum(),
          partitionBytes,
          target);
    }

    /** One file per target size of each partition's bytes, at least one. */
    public long rewriteFilesWritten() {
      return partitionBytes.values().stream()
          .mapToLong(bytes -> Math.max(1, (bytes + target - 1) / target))
          .sum();
    }
  }
}
