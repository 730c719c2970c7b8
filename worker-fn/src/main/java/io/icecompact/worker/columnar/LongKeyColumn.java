package io.icecompact.worker.columnar;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The values of a one-column integer key (int, long, date, time, timestamps) in a Parquet file,
 * read as primitive longs with parquet-java's column reader: an equality delete file's keys go into
 * the index without a record, a boxed value and a wrapper each (Iceberg's generic reader, profiled
 * at a tenth of a conversion's CPU for a CDC table's two million deleted keys).
 */
public final class LongKeyColumn {
  /** Receives the column's values in file order. */
  public interface Values {
    void value(long value);

    void nullValue();
  }

  private LongKeyColumn() {}

  /**
   * Hands every value of {@code file}'s column of {@code keySchema}'s one field to {@code values};
   * false, having read only the footer, when the file stores it otherwise than Iceberg writes it (a
   * promoted or re-annotated type, no field id): the caller's generic reader projects that.
   */
  public static boolean forEach(InputFile file, Schema keySchema, Values values)
      throws IOException {
    if (keySchema.columns().size() != 1) {
      throw new IllegalArgumentException("Not a one-column key: " + keySchema);
    }
    try (ParquetFileReader reader =
        ParquetFileReader.open(new ParquetInputOf(file), ReadOptions.builder().build())) {
      MessageType fileType = reader.getFooter().getFileMetaData().getSchema();
      if (FooterCheck.problem(ParquetSchemaUtil.convert(keySchema, "table"), fileType, Set.of())
          != null) {
        return false;
      }
      ColumnDescriptor column =
          EqualityDeletedRows.columnWithId(fileType, keySchema.columns().get(0).fieldId());
      PrimitiveTypeName physical = column.getPrimitiveType().getPrimitiveTypeName();
      if (physical != PrimitiveTypeName.INT32 && physical != PrimitiveTypeName.INT64) {
        return false;
      }
      boolean int64 = physical == PrimitiveTypeName.INT64;
      int maxDefinition = column.getMaxDefinitionLevel();
      String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
      reader.setRequestedSchema(List.of(column));
      for (int index = 0; index < reader.getRowGroups().size(); index++) {
        ColumnChunkMetaData chunk =
            EqualityDeletedRows.chunk(reader.getRowGroups().get(index), column);
        PageReadStore pages = reader.readRowGroup(index);
        if (IntegerPages.supports(column, chunk)) {
          IntegerPages keys = new IntegerPages(pages.getPageReader(column), column);
          for (int count = keys.next(); count > 0; count = keys.next()) {
            long[] page = keys.values();
            for (int i = 0; i < count; i++) {
              if (keys.isNull(i)) {
                values.nullValue();
              } else {
                values.value(page[i]);
              }
            }
          }
          continue;
        }
        ColumnReader keys =
            new ColumnReadStoreImpl(pages, NoConverter.forSchema(fileType), fileType, createdBy)
                .getColumnReader(column);
        for (long row = 0, rows = pages.getRowCount(); row < rows; row++) {
          if (keys.getCurrentDefinitionLevel() == maxDefinition) {
            values.value(int64 ? keys.getLong() : keys.getInteger());
          } else {
            values.nullValue();
          }
          keys.consume();
        }
      }
      return true;
    }
  }
}
