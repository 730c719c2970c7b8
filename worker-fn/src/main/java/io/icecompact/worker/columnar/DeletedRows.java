package io.icecompact.worker.columnar;

import io.icecompact.worker.deletes.EqualityDeleteIndex;
import io.icecompact.worker.deletes.FileEqualityDeletes;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.parquet.hadoop.ParquetFileReader;

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
      EqualityDeletedRows.mark(reader, equality, deleted);
    }
    return deleted;
  }
}
