package io.icecompact.worker.columnar;

import org.apache.iceberg.FileScanTask;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * One input data file whose footer passed {@link FooterCheck}: its scan task, its footer (read
 * once), and for each output column the input column it is copied from (null for a lineage column
 * the file does not store, whose values are derived).
 */
record ColumnarInput(FileScanTask task, ParquetMetadata footer, ColumnDescriptor[] sources) {
  String location() {
    return task.file().location();
  }
}
