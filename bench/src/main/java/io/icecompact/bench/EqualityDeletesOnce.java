package io.icecompact.bench;

import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.PartitionUtil;

/**
 * The live rows of a table with many equality delete files, each delete file read once per
 * partition. Iceberg's generic reader loads, for every data file, every equality delete file that
 * applies to it: on a CDC table of N checkpoints that is O(N²) file reads (a table of 690
 * checkpoints would take hours). Here Iceberg's scan planning still decides which delete files
 * apply to which data file; the data files of a partition are read newest first, so the equality
 * deletes that apply to each are those of the one before plus the newer ones, and their keys are
 * read once into one set. A data file whose equality deletes are not such a superset gets a set of
 * its own. Position deletes are Iceberg's {@link BaseDeleteLoader}'s, row lineage is the generic
 * reader's (the task's constants).
 */
final class EqualityDeletesOnce {
  private EqualityDeletesOnce() {}

  /**
   * Calls {@code rows} with every live row, projected to {@code projection} (the table's columns
   * first, then any metadata columns); false, having called nothing, for a table it does not read:
   * a file not in Parquet, or equality deletes on more than one set of columns.
   */
  static boolean forEachLiveRow(Table table, Schema projection, Consumer<Record> rows) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<List<Integer>> equalityIds = new HashSet<>();
    for (FileScanTask task : tasks) {
      if (task.file().format() != FileFormat.PARQUET) {
        return false;
      }
      for (DeleteFile delete : task.deletes()) {
        if (delete.content() == FileContent.EQUALITY_DELETES) {
          if (delete.format() != FileFormat.PARQUET) {
            return false;
          }
          equalityIds.add(delete.equalityFieldIds().stream().sorted().toList());
        }
      }
    }
    if (equalityIds.size() > 1) {
      return false;
    }
    Schema keySchema =
        equalityIds.isEmpty()
            ? null
            : TypeUtil.select(table.schema(), Set.copyOf(equalityIds.iterator().next()));
    int[] keyPositions =
        keySchema == null
            ? new int[0]
            : keySchema.columns().stream()
                .mapToInt(
                    field -> projection.columns().indexOf(projection.findField(field.fieldId())))
                .toArray();
    Map<String, List<FileScanTask>> byPartition = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      String partition =
          task.file().specId() + "/" + task.spec().partitionToPath(task.file().partition());
      byPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(task);
    }
    BaseDeleteLoader positions =
        new BaseDeleteLoader(file -> table.io().newInputFile(file.location()));
    for (List<FileScanTask> partition : byPartition.values()) {
      partition.sort(
          Comparator.comparing((FileScanTask task) -> task.file().dataSequenceNumber()).reversed());
      Set<String> loadedFiles = new HashSet<>();
      Set<String> deletedKeys = new HashSet<>();
      for (FileScanTask task : partition) {
        List<DeleteFile> equality = new ArrayList<>();
        List<DeleteFile> position = new ArrayList<>();
        for (DeleteFile delete : task.deletes()) {
          (delete.content() == FileContent.EQUALITY_DELETES ? equality : position).add(delete);
        }
        Set<String> locations = new HashSet<>();
        equality.forEach(delete -> locations.add(delete.location()));
        Set<String> keys;
        if (locations.containsAll(loadedFiles)) {
          for (DeleteFile delete : equality) {
            if (loadedFiles.add(delete.location())) {
              readKeys(table, delete, keySchema, deletedKeys);
            }
          }
          keys = deletedKeys;
        } else {
          keys = new HashSet<>();
          for (DeleteFile delete : equality) {
            readKeys(table, delete, keySchema, keys);
          }
        }
        PositionDeleteIndex deleted =
            positions.loadPositionDeletes(position, task.file().location());
        readLive(table, task, projection, keySchema, keyPositions, keys, deleted, rows);
      }
    }
    return true;
  }

  private static void readKeys(Table table, DeleteFile delete, Schema keySchema, Set<String> keys) {
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(delete.location()))
            .project(keySchema)
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(keySchema, fileSchema))
            .build()) {
      int width = keySchema.columns().size();
      records.forEach(record -> keys.add(LiveRows.text(record, width)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void readLive(
      Table table,
      FileScanTask task,
      Schema projection,
      Schema keySchema,
      int[] keyPositions,
      Set<String> keys,
      PositionDeleteIndex deleted,
      Consumer<Record> rows) {
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    Record key = keySchema == null ? null : GenericRecord.create(keySchema);
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(task.file().location()))
            .project(projection)
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema, constants))
            .build()) {
      long pos = 0;
      for (Record record : records) {
        boolean live = !deleted.isDeleted(pos++);
        if (live && key != null && !keys.isEmpty()) {
          for (int i = 0; i < keyPositions.length; i++) {
            key.set(i, record.get(keyPositions[i]));
          }
          live = !keys.contains(LiveRows.text(key, keyPositions.length));
        }
        if (live) {
          rows.accept(record);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
