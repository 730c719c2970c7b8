package io.icecompact.cli.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The live rows of a table as a multiset (row text to count), read by Iceberg's own generic reader
 * with every delete applied. Comparing it before and after a compaction is the proof that no row was
 * lost or resurrected.
 */
public final class LiveRows {
  private LiveRows() {}

  public static Map<String, Long> multiset(Table table) {
    return multiset(table, table.schema());
  }

  /** Rows projected to {@code columns}; pass the lineage columns in to compare them too. */
  public static Map<String, Long> multiset(Table table, Schema columns) {
    table.refresh();
    Map<String, Long> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).project(columns).build()) {
      for (Record record : records) {
        rows.merge(text(record, columns.columns().size()), 1L, Long::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * The row's first {@code width} values: Iceberg's reader may append columns it needed for deletes
   * (e.g. {@code _pos}), which are not part of the row.
   */
  private static String text(Record record, int width) {
    StringBuilder text = new StringBuilder("(");
    for (int i = 0; i < width; i++) {
      text.append(i == 0 ? "" : ", ").append(record.get(i));
    }
    return text.append(')').toString();
  }

  public static long count(Map<String, Long> multiset) {
    return multiset.values().stream().mapToLong(Long::longValue).sum();
  }
}
