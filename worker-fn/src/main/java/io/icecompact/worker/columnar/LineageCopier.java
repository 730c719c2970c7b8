package io.icecompact.worker.columnar;

import java.util.BitSet;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.ColumnWriter;

/**
 * Writes a v3 row lineage column with the generic path's semantics: the stored value where the file
 * has one, otherwise {@code first_row_id + position} for {@code _row_id} and the file's data
 * sequence number for {@code _last_updated_sequence_number}; all nulls when the file has no first
 * row id (Iceberg's reader then reads both columns as null).
 */
final class LineageCopier {
  private LineageCopier() {}

  /**
   * @param stored the file's own column, or null when it stores none
   * @param firstRowId the file's first row id, or null
   * @param inherited the value of a row without one: null for {@code _row_id} (derived from the
   *     position), the data sequence number for {@code _last_updated_sequence_number}
   */
  static int copy(
      ColumnReader stored,
      ColumnSink sink,
      Long firstRowId,
      Long inherited,
      boolean rowId,
      int from,
      int to,
      long firstRow,
      BitSet deleted) {
    ColumnWriter writer = sink.writer();
    int maxDefinition = sink.column().getMaxDefinitionLevel();
    boolean derivable = firstRowId != null && (rowId || inherited != null);
    int written = 0;
    for (int row = from; row < to; row++) {
      long pos = firstRow + row;
      boolean hasStored = false;
      long storedValue = 0;
      if (stored != null) {
        hasStored =
            stored.getCurrentDefinitionLevel() == stored.getDescriptor().getMaxDefinitionLevel();
        if (hasStored) {
          storedValue = stored.getLong();
        }
        stored.consume();
      }
      if (deleted.get(Math.toIntExact(pos))) {
        continue;
      }
      if (!derivable) {
        writer.writeNull(0, 0);
      } else if (hasStored) {
        writer.write(storedValue, 0, maxDefinition);
      } else {
        writer.write(rowId ? firstRowId + pos : inherited, 0, maxDefinition);
      }
      sink.endRecord();
      written++;
    }
    return written;
  }
}
