package io.icecompact.worker.columnar;

import io.icecompact.worker.deletes.FileEqualityDeletes;
import io.icecompact.worker.deletes.KeyDeletes;
import io.icecompact.worker.deletes.KeyRow;
import io.icecompact.worker.deletes.LongKeyDeletes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
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
 * The rows of one Parquet data file that its equality deletes delete, found by reading only the
 * file's key columns with parquet-java's column readers (no row objects) and looking each key up in
 * the group's {@link io.icecompact.worker.deletes.EqualityDeleteIndex}: deleted iff a delete newer
 * than the file holds it. A key of one integer-valued column is read and looked up as a primitive
 * long, and a row group whose key bounds hold no deleted key is not read at all.
 *
 * <p>Used by the columnar rewrite ({@link DeletedRows}) and by the conversion of equality deletes,
 * which needs nothing else of the file.
 */
public final class EqualityDeletedRows {
  /** A file's rows (its footer's count) and which of them its equality deletes delete. */
  public record Found(long rows, BitSet deleted) {}

  private EqualityDeletedRows() {}

  /**
   * Reads {@code file}'s footer and key columns; empty, without reading any column, when a key
   * column is not stored as the table's schema has it (absent, promoted, nested, no field id): that
   * needs Iceberg's schema projection, which the caller's generic reader does.
   *
   * @param why told what rules the file out, when it is
   */
  public static Optional<Found> find(
      InputFile file, FileEqualityDeletes equality, Schema tableSchema, Consumer<String> why)
      throws IOException {
    ParquetInputOf input = new ParquetInputOf(file);
    try (ParquetFileReader reader = ParquetFileReader.open(input, ReadOptions.builder().build())) {
      MessageType fileType = reader.getFooter().getFileMetaData().getSchema();
      String problem = FooterCheck.problem(keyColumns(equality, tableSchema), fileType, Set.of());
      if (problem != null) {
        why.accept(problem);
        return Optional.empty();
      }
      long rows = reader.getRowGroups().stream().mapToLong(BlockMetaData::getRowCount).sum();
      BitSet deleted = new BitSet(Math.toIntExact(rows));
      mark(reader, equality, deleted);
      return Optional.of(new Found(rows, deleted));
    }
  }

  /** The key columns as Iceberg's writers lay them out in Parquet. */
  private static MessageType keyColumns(FileEqualityDeletes equality, Schema tableSchema) {
    Set<Integer> ids = new HashSet<>();
    equality
        .keys()
        .forEach(key -> key.keySchema().columns().forEach(field -> ids.add(field.fieldId())));
    return ParquetSchemaUtil.convert(TypeUtil.select(tableSchema, ids), "table");
  }

  /** Marks in {@code deleted} the rows of {@code reader}'s file that {@code equality} deletes. */
  static void mark(ParquetFileReader reader, FileEqualityDeletes equality, BitSet deleted)
      throws IOException {
    for (FileEqualityDeletes.Key key : equality.keys()) {
      markEqualityDeletes(reader, key, equality.fileSequence(), deleted);
    }
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
      ColumnChunkMetaData firstChunk = chunk(block, keyColumns[0]);
      if (integers != null
          && !mayMatch(
              integers, firstChunk == null ? null : firstChunk.getStatistics(), fileSequence)) {
        firstRow +=
            block.getRowCount(); // no deleted key within the chunk's bounds: nothing to read
        continue;
      }
      PageReadStore pages = reader.readRowGroup(index);
      int rows = Math.toIntExact(pages.getRowCount());
      if (integers != null && IntegerPages.supports(keyColumns[0], firstChunk)) {
        markIntegerPages(
            new IntegerPages(pages.getPageReader(keyColumns[0]), keyColumns[0]),
            integers,
            fileSequence,
            rows,
            firstRow,
            deleted);
        firstRow += rows;
        continue;
      }
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

  /** As {@link #markIntegers}, from the chunk's pages decoded in bulk. */
  private static void markIntegerPages(
      IntegerPages keys,
      List<LongKeyDeletes> indexes,
      long fileSequence,
      int rows,
      long firstRow,
      BitSet deleted)
      throws IOException {
    boolean nullDeleted = false;
    for (LongKeyDeletes index : indexes) {
      nullDeleted |= index.nullSequence() > fileSequence;
    }
    LongKeyDeletes only = indexes.size() == 1 ? indexes.get(0) : null;
    int row = 0;
    for (int count = keys.next(); count > 0; count = keys.next()) {
      long[] values = keys.values();
      for (int i = 0; i < count; i++, row++) {
        boolean match;
        if (keys.isNull(i)) {
          match = nullDeleted;
        } else if (only != null) {
          match = only.newestSequence(values[i]) > fileSequence;
        } else {
          match = false;
          for (LongKeyDeletes index : indexes) {
            match |= index.newestSequence(values[i]) > fileSequence;
          }
        }
        if (match) {
          deleted.set(Math.toIntExact(firstRow + row));
        }
      }
    }
    if (row != rows) {
      throw new IllegalStateException(
          "A key column chunk holds " + row + " values for a row group of " + rows + " rows");
    }
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

  static ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor column) {
    ColumnPath path = ColumnPath.get(column.getPath());
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (chunk.getPath().equals(path)) {
        return chunk;
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
