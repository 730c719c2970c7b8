package io.icecompact.worker.columnar;

import io.icecompact.worker.deletes.EqualityDeleteIndex;
import io.icecompact.worker.deletes.FileEqualityDeletes;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import io.icecompact.worker.deletes.KeyDeletes;
import io.icecompact.worker.deletes.KeyRow;
import io.icecompact.worker.deletes.LongKeyDeletes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.IntStatistics;
import org.apache.parquet.column.statistics.LongStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The deleted positions of one data file, as a bitmap built before its values are copied: position
 * deletes and deletion vectors as they are, equality deletes by reading only the key columns and
 * looking each row's key up in the group's {@link EqualityDeleteIndex} (deleted iff a delete newer
 * than the file holds it).
 *
 * <p>Which delete files apply is what Iceberg's planning attached to the scan task; the loader
 * reads each delete file once per group.
 */
final class DeletedRows {
  private final GroupDeleteLoader loader;
  private final Schema tableSchema;

  DeletedRows(GroupDeleteLoader loader, Schema tableSchema) {
    this.loader = loader;
    this.tableSchema = tableSchema;
  }

  BitSet of(ColumnarInput input, ParquetFileReader reader) throws IOException {
    FileScanTask task = input.task();
    int rows = Math.toIntExact(task.file().recordCount());
    BitSet deleted = new BitSet(rows);
    List<DeleteFile> positional = new ArrayList<>();
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() == FileContent.POSITION_DELETES) {
        positional.add(delete);
      }
    }
    if (!positional.isEmpty()) {
      PositionDeleteIndex index = loader.loadPositionDeletes(positional, task.file().location());
      index.forEachInRange(0, rows, position -> deleted.set((int) position));
    }
    if (positional.size() < task.deletes().size()) {
      FileEqualityDeletes equality = loader.equalityDeletes().forFile(task, tableSchema);
      for (FileEqualityDeletes.Key key : equality.keys()) {
        markEqualityDeletes(reader, key, equality.fileSequence(), deleted);
      }
    }
    return deleted;
  }

  /**
   * Reads the key columns of each row group and marks rows whose key a delete newer than the file
   * holds.
   */
  private static void markEqualityDeletes(
      ParquetFileReader reader, FileEqualityDeletes.Key key, long fileSequence, BitSet deleted)
      throws IOException {
    MessageType fileType = reader.getFooter().getFileMetaData().getSchema();
    String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
    List<Types.NestedField> keyFields = key.keySchema().columns();
    ColumnDescriptor[] keyColumns = new ColumnDescriptor[keyFields.size()];
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = columnWithId(fileType, keyFields.get(k).fieldId());
    }
    reader.setRequestedSchema(List.of(keyColumns));
    KeyRow row = new KeyRow(keyColumns.length);
    List<LongKeyDeletes> integers = integerIndexes(key);
    long firstRow = 0;
    // by index: each key schema reads the file's row groups again (readNextRowGroup would be at the
    // end)
    for (int index = 0; index < reader.getRowGroups().size(); index++) {
      BlockMetaData block = reader.getRowGroups().get(index);
      if (integers != null && !mayMatch(integers, statistics(block, keyColumns[0]), fileSequence)) {
        firstRow +=
            block.getRowCount(); // no deleted key within the chunk's bounds: nothing to read
        continue;
      }
      PageReadStore pages = reader.readRowGroup(index);
      int rows = Math.toIntExact(pages.getRowCount());
      ColumnReadStoreImpl store =
          new ColumnReadStoreImpl(pages, NoConverter.forSchema(fileType), fileType, createdBy);
      if (integers != null) {
        markIntegers(
            store.getColumnReader(keyColumns[0]), integers, fileSequence, rows, firstRow, deleted);
        firstRow += rows;
        continue;
      }
      Object[][] values = new Object[keyColumns.length][];
      for (int k = 0; k < keyColumns.length; k++) {
        values[k] = readColumn(store.getColumnReader(keyColumns[k]), keyFields.get(k).type(), rows);
      }
      for (int at = 0; at < rows; at++) {
        for (int k = 0; k < keyColumns.length; k++) {
          row.set(k, values[k][at]);
        }
        if (key.deletes(row, fileSequence)) {
          deleted.set(Math.toIntExact(firstRow + at));
        }
      }
      firstRow += rows;
    }
  }

  /**
   * The key's indexes as primitive long indexes, or null when it is not one integer-valued column.
   */
  private static List<LongKeyDeletes> integerIndexes(FileEqualityDeletes.Key key) {
    List<LongKeyDeletes> integers = new ArrayList<>();
    for (KeyDeletes index : key.indexes()) {
      if (!(index instanceof LongKeyDeletes longs)) {
        return null;
      }
      integers.add(longs);
    }
    return integers;
  }

  /**
   * Whether a chunk with these statistics may hold a deleted key: false only when its statistics
   * are complete and no key lies within its bounds (and it has no null a null key would delete).
   */
  private static boolean mayMatch(
      List<LongKeyDeletes> indexes, Statistics<?> stats, long fileSequence) {
    if (stats == null || stats.isEmpty() || !stats.isNumNullsSet()) {
      return true;
    }
    long min;
    long max;
    if (stats instanceof LongStatistics longs) {
      min = longs.getMin();
      max = longs.getMax();
    } else if (stats instanceof IntStatistics ints) {
      min = ints.getMin();
      max = ints.getMax();
    } else {
      return true;
    }
    for (LongKeyDeletes index : indexes) {
      if (stats.getNumNulls() > 0 && index.nullSequence() > fileSequence) {
        return true;
      }
      if (stats.hasNonNullValue() && index.anyWithin(min, max)) {
        return true;
      }
    }
    return false;
  }

  private static void markIntegers(
      ColumnReader column,
      List<LongKeyDeletes> indexes,
      long fileSequence,
      int rows,
      long firstRow,
      BitSet deleted) {
    int maxDefinition = column.getDescriptor().getMaxDefinitionLevel();
    boolean int64 =
        column.getDescriptor().getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT64;
    LongKeyDeletes only = indexes.size() == 1 ? indexes.get(0) : null;
    for (int row = 0; row < rows; row++) {
      boolean match = false;
      if (column.getCurrentDefinitionLevel() != maxDefinition) {
        for (LongKeyDeletes index : indexes) {
          match |= index.nullSequence() > fileSequence;
        }
      } else {
        long value = int64 ? column.getLong() : column.getInteger();
        if (only != null) {
          match = only.newestSequence(value) > fileSequence;
        } else {
          for (LongKeyDeletes index : indexes) {
            match |= index.newestSequence(value) > fileSequence;
          }
        }
      }
      if (match) {
        deleted.set(Math.toIntExact(firstRow + row));
      }
      column.consume();
    }
  }

  private static Object[] readColumn(ColumnReader column, Type type, int rows) {
    Object[] values = new Object[rows];
    int maxDefinition = column.getDescriptor().getMaxDefinitionLevel();
    for (int row = 0; row < rows; row++) {
      if (column.getCurrentDefinitionLevel() == maxDefinition) {
        values[row] = KeyValueOf.read(column, type);
      }
      column.consume();
    }
    return values;
  }

  private static Statistics<?> statistics(BlockMetaData block, ColumnDescriptor column) {
    ColumnPath path = ColumnPath.get(column.getPath());
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (chunk.getPath().equals(path)) {
        return chunk.getStatistics();
      }
    }
    return null;
  }

  static ColumnDescriptor columnWithId(MessageType type, int fieldId) {
    for (ColumnDescriptor column : type.getColumns()) {
      if (column.getPrimitiveType().getId() != null
          && column.getPrimitiveType().getId().intValue() == fieldId) {
        return column;
      }
    }
    throw new IllegalStateException("No column with field id " + fieldId + " in " + type);
  }
}
