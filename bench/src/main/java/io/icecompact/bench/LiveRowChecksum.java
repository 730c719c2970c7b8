package io.icecompact.bench;

import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The live rows of a table as a count and an order-independent multiset checksum (two 64-bit sums
 * of per-row hashes), read by Iceberg's generic reader with every delete applied: the bench's proof
 * that a run lost or resurrected no row, without holding millions of rows in memory. On v3 the row
 * lineage columns are part of each row. A table with equality deletes is read with each equality
 * delete file read once per partition ({@link EqualityDeletesOnce}).
 */
record LiveRowChecksum(long rows, long sumA, long sumB) {
  static LiveRowChecksum of(Table table) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    boolean equalityDeletes =
        current != null
            && !"0".equals(current.summary().getOrDefault("total-equality-deletes", "0"));
    return of(table, equalityDeletes);
  }

  /**
   * With {@code equalityDeletesOnce}, a table with equality deletes is read by {@link
   * EqualityDeletesOnce} (each equality delete file once per partition, which a CDC table of
   * hundreds of checkpoints needs) when it can; otherwise, and always without, by Iceberg's generic
   * reader.
   */
  static LiveRowChecksum of(Table table, boolean equalityDeletesOnce) {
    table.refresh();
    List<Types.NestedField> columns = new ArrayList<>(table.schema().columns());
    if (TableUtil.formatVersion(table) >= 3) {
      columns.add(MetadataColumns.ROW_ID);
      columns.add(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);
    }
    Schema projection = new Schema(columns);
    Sums sums = new Sums(columns.size());
    if (equalityDeletesOnce && EqualityDeletesOnce.forEachLiveRow(table, projection, sums::add)) {
      return sums.checksum();
    }
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).project(projection).build()) {
      records.forEach(sums::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sums.checksum();
  }

  /** The checksum of {@code rows} (a model's expected rows), as a v2 table's of those rows. */
  static LiveRowChecksum ofRows(Iterable<Record> rows, int width) {
    Sums sums = new Sums(width);
    rows.forEach(sums::add);
    return sums.checksum();
  }

  private static final class Sums {
    private final int width;
    private long rows;
    private long sumA;
    private long sumB;

    Sums(int width) {
      this.width = width;
    }

    void add(Record record) {
      String text = LiveRows.text(record, width);
      rows++;
      sumA += mix(hash(text, 0x9E3779B97F4A7C15L));
      sumB += mix(hash(text, 0xC2B2AE3D27D4EB4FL));
    }

    LiveRowChecksum checksum() {
      return new LiveRowChecksum(rows, sumA, sumB);
    }
  }

  private static long hash(String text, long seed) {
    long h = seed;
    for (int i = 0; i < text.length(); i++) {
      h = (h ^ text.charAt(i)) * 0x100000001B3L;
    }
    return h;
  }

  /** SplitMix64's finalizer: spreads FNV's weak low bits before summing. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%,d rows, checksum %016x%016x", rows, sumA, sumB);
  }
}
