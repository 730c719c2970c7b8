package io.icecompact.worker.columnar;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeSet;
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
 * looking each row's key up in the loaded delete set.
 *
 * <p>Which delete files apply is exactly what Iceberg's planning attached to the scan task (it has
 * already compared sequence numbers); the loader reads each delete file once per group.
 */
final class DeletedRows {
  private final DeleteLoader loader;
  private final Schema tableSchema;
  // an equality delete file usually applies to every file of its partition: build its set once
  private final Map<List<String>, StructLikeSet> equalitySets = new java.util.HashMap<>();

  DeletedRows(DeleteLoader loader, Schema tableSchema) {
    this.loader = loader;
    this.tableSchema = tableSchema;
  }

  BitSet of(ColumnarInput input, ParquetFileReader reader) throws IOException {
    FileScanTask task = input.task();
    int rows = Math.toIntExact(task.file().recordCount());
    BitSet deleted = new BitSet(rows);
    List<DeleteFile> positional = new ArrayList<>();
    Map<Set<Integer>, List<DeleteFile>> byKey = new LinkedHashMap<>();
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() == FileContent.POSITION_DELETES) {
        positional.add(delete);
      } else {
        byKey.computeIfAbsent(Set.copyOf(delete.equalityFieldIds()), ids -> new ArrayList<>()).add(delete);
      }
    }
    if (!positional.isEmpty()) {
      PositionDeleteIndex index = loader.loadPositionDeletes(positional, task.file().location());
      index.forEachInRange(0, rows, position -> deleted.set((int) position));
    }
    for (Map.Entry<Set<Integer>, List<DeleteFile>> entry : byKey.entrySet()) {
      Schema keySchema = TypeUtil.select(tableSchema, entry.getKey());
      List<String> files = entry.getValue().stream().map(d -> d.location() + "@" + d.equalityFieldIds()).toList();
      StructLikeSet keys =
          equalitySets.computeIfAbsent(files, unused -> loader.loadEqualityDeletes(entry.getValue(), keySchema));
      if (!keys.isEmpty()) {
        markEqualityDeletes(reader, keySchema, keys, deleted);
      }
    }
    return deleted;
  }

  /** Reads the key columns of each row group and marks rows whose key is in {@code keys}. */
  private static void markEqualityDeletes(
      ParquetFileReader reader, Schema keySchema, StructLikeSet keys, BitSet deleted) throws IOException {
    MessageType fileType = reader.getFooter().getFileMetaData().getSchema();
    String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
    List<Types.NestedField> keyFields = keySchema.columns();
    ColumnDescriptor[] keyColumns = new ColumnDescriptor[keyFields.size()];
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = columnWithId(fileType, keyFields.get(k).fieldId());
    }
    reader.setRequestedSchema(List.of(keyColumns));
    KeyRow key = new KeyRow(keyColumns.length);
    SingleKeySet single = keyColumns.length == 1 ? SingleKeySet.of(keys, keyFields.get(0).type()) : null;
    long firstRow = 0;
    // by index: each key set reads the file's row groups again (readNextRowGroup would be at the end)
    for (int index = 0; index < reader.getRowGroups().size(); index++) {
      BlockMetaData block = reader.getRowGroups().get(index);
      if (single != null && !single.mayMatch(statistics(block, keyColumns[0]))) {
        firstRow += block.getRowCount(); // no deleted key within the chunk's bounds: nothing to read
        continue;
      }
      PageReadStore pages = reader.readRowGroup(index);
      int rows = Math.toIntExact(pages.getRowCount());
      ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, NoConverter.forSchema(fileType), fileType, createdBy);
      if (single != null) {
        single.mark(store.getColumnReader(keyColumns[0]), keyFields.get(0).type(), rows, firstRow, deleted);
        firstRow += rows;
        continue;
      }
      Object[][] values = new Object[keyColumns.length][];
      for (int k = 0; k < keyColumns.length; k++) {
        values[k] = readColumn(store.getColumnReader(keyColumns[k]), keyFields.get(k).type(), rows);
      }
      for (int row = 0; row < rows; row++) {
        for (int k = 0; k < keyColumns.length; k++) {
          key.values[k] = values[k][row];
        }
        if (keys.contains(key)) {
          deleted.set(Math.toIntExact(firstRow + row));
        }
      }
      firstRow += rows;
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
      if (column.getPrimitiveType().getId() != null && column.getPrimitiveType().getId().intValue() == fieldId) {
        return column;
      }
    }
    throw new IllegalStateException("No column with field id " + fieldId + " in " + type);
  }

  /**
   * A one-column key set as plain values: looking a value up directly avoids wrapping every row in
   * a struct and hashing it through Iceberg's struct comparators. Same equality as the struct set:
   * strings compare as strings, a null key deletes null values.
   */
  private record SingleKeySet(Set<Object> values, boolean matchesNull, long[] sortedIntegers) {
    static SingleKeySet of(StructLikeSet keys, Type type) {
      Set<Object> values = new java.util.HashSet<>();
      boolean matchesNull = false;
      for (StructLike key : keys) {
        Object value = key.get(0, Object.class);
        if (value == null) {
          matchesNull = true;
        } else {
          values.add(type.typeId() == Type.TypeID.STRING ? value.toString() : value);
        }
      }
      long[] integers = null;
      if (isInteger(type)) {
        integers = values.stream().mapToLong(value -> ((Number) value).longValue()).sorted().toArray();
      }
      // integer keys live in the sorted array only
      return new SingleKeySet(integers == null ? values : Set.of(), matchesNull, integers);
    }

    /** Integer-valued keys (ids, dates, timestamps): looked up in a sorted array, without boxing. */
    private static boolean isInteger(Type type) {
      return switch (type.typeId()) {
        case INTEGER, DATE, LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> true;
        default -> false;
      };
    }

    /**
     * Whether a chunk with these statistics may hold a deleted key: false only when its statistics
     * are complete and no key lies within its bounds (and it has no null a null key would delete).
     */
    boolean mayMatch(Statistics<?> stats) {
      if (sortedIntegers == null || stats == null || stats.isEmpty() || !stats.isNumNullsSet()) {
        return true;
      }
      if (stats.getNumNulls() > 0 && matchesNull) {
        return true;
      }
      if (!stats.hasNonNullValue()) {
        return false; // only nulls, and no null key
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
      int at = Arrays.binarySearch(sortedIntegers, min);
      int first = at >= 0 ? at : -at - 1; // the first key >= min
      return first < sortedIntegers.length && sortedIntegers[first] <= max;
    }

    void mark(ColumnReader column, Type type, int rows, long firstRow, BitSet deleted) {
      int maxDefinition = column.getDescriptor().getMaxDefinitionLevel();
      boolean int64 = column.getDescriptor().getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT64;
      for (int row = 0; row < rows; row++) {
        boolean match;
        if (column.getCurrentDefinitionLevel() != maxDefinition) {
          match = matchesNull;
        } else if (sortedIntegers != null) {
          long value = int64 ? column.getLong() : column.getInteger();
          match = Arrays.binarySearch(sortedIntegers, value) >= 0;
        } else {
          match = values.contains(KeyValueOf.read(column, type));
        }
        if (match) {
          deleted.set(Math.toIntExact(firstRow + row));
        }
        column.consume();
      }
    }
  }

  /** A row's key, reused across rows: the set only reads it during the lookup. */
  private static final class KeyRow implements StructLike {
    private final Object[] values;

    KeyRow(int size) {
      this.values = new Object[size];
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
}
