package io.icecompact.cli.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.ByteBuffers;

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
  public static String text(Record record, int width) {
    StringBuilder text = new StringBuilder("(");
    for (int i = 0; i < width; i++) {
      text.append(i == 0 ? "" : ", ").append(value(record.get(i)));
    }
    return text.append(')').toString();
  }

  /**
   * The rows of one Parquet data file in the order they are stored, deletes not applied: how a test sees
   * what a sort wrote.
   */
  public static List<Record> storedOrder(Table table, DataFile file) {
    return storedOrder(table, file.location());
  }

  /** The rows of the Parquet data file at {@code location}, in stored order (see above). */
  public static List<Record> storedOrder(Table table, String location) {
    Schema schema = table.schema();
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(location))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      records.forEach(rows::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * A value's text, by content: binary values as hex (a buffer's own text names its position, not its
   * bytes), nested structs, lists and maps element by element, floats as Java prints them (-0.0 and NaN
   * stay distinct).
   */
  static String value(Object value) {
    if (value instanceof ByteBuffer buffer) {
      return "0x" + HexFormat.of().formatHex(ByteBuffers.toByteArray(buffer));
    } else if (value instanceof byte[] bytes) {
      return "0x" + HexFormat.of().formatHex(bytes);
    } else if (value instanceof StructLike struct) {
      StringBuilder text = new StringBuilder("{");
      for (int i = 0; i < struct.size(); i++) {
        text.append(i == 0 ? "" : ", ").append(value(struct.get(i, Object.class)));
      }
      return text.append('}').toString();
    } else if (value instanceof List<?> list) {
      return list.stream().map(LiveRows::value).collect(Collectors.joining(", ", "[", "]"));
    } else if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .map(entry -> value(entry.getKey()) + "=" + value(entry.getValue()))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    return String.valueOf(value);
  }

  public static long count(Map<String, Long> multiset) {
    return multiset.values().stream().mapToLong(Long::longValue).sum();
  }
}
