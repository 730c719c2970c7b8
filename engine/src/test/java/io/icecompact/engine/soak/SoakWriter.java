package io.icecompact.engine.soak;

import io.icecompact.fixtures.FragmentedTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Another engine writing to a soak table: appends new orders, deletes rows by position (a delete
 * file on v2, a deletion vector on v3) and by equality on {@code order_id}. Every choice comes from
 * the {@link Random} it is handed, and candidates are ordered by content (order ids), never by file
 * names (which hold random UUIDs), so a seed replays the same changes.
 */
final class SoakWriter {
  /** What one write did, for the soak's figures and messages. */
  enum Change {
    APPEND,
    POSITION_DELETE,
    EQUALITY_DELETE
  }

  private static final int ORDER_ID = 1;

  /**
   * {@code -Dsoak.verbose=true} prints every write, to follow a failure back to the write behind
   * it.
   */
  private static final boolean VERBOSE = Boolean.getBoolean("soak.verbose");

  private final int days;
  private long nextOrderId;

  SoakWriter(int days, long firstOrderId) {
    this.days = days;
    this.nextOrderId = firstOrderId;
  }

  /** Commits one change drawn from {@code random}; returns what it did. */
  Change write(Table table, Random random) {
    table.refresh();
    int draw = random.nextInt(10);
    if (draw < 4) {
      append(table, random);
      return Change.APPEND;
    }
    List<DataFile> live = liveDataFiles(table, draw < 7 && formatVersion(table) >= 3);
    if (live.isEmpty()) {
      append(table, random);
      return Change.APPEND;
    }
    DataFile target = live.get(random.nextInt(live.size()));
    if (draw < 7) {
      long position = random.nextLong(target.recordCount());
      DeleteFile delete = FragmentedTable.positionDelete(table, target, position);
      table.newRowDelta().addDeletes(delete).commit();
      log(
          table,
          "position delete of %s @ %d (rows from order %d)",
          target.location(),
          position,
          lowerOrderId(target));
      return Change.POSITION_DELETE;
    }
    List<Long> ids = liveOrderIdsOfDay(table, day(target));
    long orderId = ids.isEmpty() ? lowerOrderId(target) : ids.get(random.nextInt(ids.size()));
    DeleteFile delete = FragmentedTable.equalityDelete(table, target, orderId);
    table.newRowDelta().addDeletes(delete).commit();
    log(table, "equality delete of order %d in day %d", orderId, day(target));
    return Change.EQUALITY_DELETE;
  }

  private void append(Table table, Random random) {
    int day = random.nextInt(days);
    int rows = 10 + random.nextInt(50);
    List<Record> orders = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      orders.add(FragmentedTable.newOrder(nextOrderId++, day));
    }
    table.newAppend().appendFile(FragmentedTable.dataFile(table, orders)).commit();
    log(table, "append of orders %d to %d in day %d", nextOrderId - rows, nextOrderId - 1, day);
  }

  private static void log(Table table, String format, Object... args) {
    if (VERBOSE) {
      table.refresh();
      System.err.printf(
          "soak write on %s (snapshot %d, seq %d): %s%n",
          table.name(),
          table.currentSnapshot().snapshotId(),
          table.currentSnapshot().sequenceNumber(),
          String.format(format, args));
    }
  }

  /**
   * Live data files by their smallest order id (unique: an order is in one live file); on v3, only
   * files without a deletion vector when {@code withoutDv}, since a second vector would have to
   * merge the first.
   */
  private static List<DataFile> liveDataFiles(Table table, boolean withoutDv) {
    List<DataFile> files = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        boolean hasDv = task.deletes().stream().anyMatch(d -> d.format() == FileFormat.PUFFIN);
        if ((!withoutDv || !hasDv) && seen.add(task.file().location())) {
          files.add(((DataFile) task.file()).copy());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.sort(Comparator.comparingLong(SoakWriter::lowerOrderId));
    return files;
  }

  private static List<Long> liveOrderIdsOfDay(Table table, int day) {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).select("order_id", "ordered_at").build()) {
      for (Record row : rows) {
        OffsetDateTime at = (OffsetDateTime) row.getField("ordered_at");
        if (at.toLocalDate().toEpochDay() == day) {
          ids.add((Long) row.getField("order_id"));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ids.sort(null);
    return ids;
  }

  private static long lowerOrderId(DataFile file) {
    return Conversions.fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(ORDER_ID));
  }

  private static int day(DataFile file) {
    return file.partition().get(0, Integer.class);
  }

  private static int formatVersion(Table table) {
    return ((HasTableOperations) table).operations().current().formatVersion();
  }
}
