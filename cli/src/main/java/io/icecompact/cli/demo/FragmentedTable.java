package io.icecompact.cli.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Builds the table a streaming writer leaves behind: one small file per micro-batch, one snapshot per
 * commit, day partitions, and a few position and equality deletes from a CDC feed. Used by
 * {@code demo}, {@code bench} and the tests, so all three measure the same shape.
 */
public final class FragmentedTable {
  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "order_id", Types.LongType.get()),
          Types.NestedField.required(2, "customer_id", Types.LongType.get()),
          Types.NestedField.optional(3, "region", Types.StringType.get()),
          Types.NestedField.optional(4, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(5, "ordered_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(6, "note", Types.StringType.get()));

  private static final String[] REGIONS = {"eu", "us", "apac", "latam"};
  private static final OffsetDateTime FIRST_DAY = OffsetDateTime.of(2026, 6, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  /**
   * The shape of the table.
   *
   * @param days day partitions (0 for an unpartitioned table with {@code filesPerDay} files per "day")
   * @param filesPerDay files (and snapshots) per day
   * @param rowsPerFile rows in each file
   * @param formatVersion 2 (position delete files) or 3 (deletion vectors, row lineage)
   * @param positionDeletedFiles how many data files get rows deleted by position
   * @param equalityDeletedRows how many order ids are deleted by equality deletes
   * @param partitioned day partitions, or one unpartitioned table
   * @param equalityDeleteWindow the equality-deleted ids are drawn from the newest this many orders, as
   *     a CDC feed updates or cancels orders soon after they are placed; 0 draws them from every order
   *     (the worst case for a rewrite: nearly every file then holds a deleted row)
   */
  public record Shape(
      int days,
      int filesPerDay,
      int rowsPerFile,
      int formatVersion,
      int positionDeletedFiles,
      int equalityDeletedRows,
      boolean partitioned,
      long equalityDeleteWindow) {

    /** A shape whose equality-deleted ids are drawn from every order. */
    public Shape(
        int days,
        int filesPerDay,
        int rowsPerFile,
        int formatVersion,
        int positionDeletedFiles,
        int equalityDeletedRows,
        boolean partitioned) {
      this(days, filesPerDay, rowsPerFile, formatVersion, positionDeletedFiles, equalityDeletedRows, partitioned, 0);
    }

    /** The streaming table of the docs: 150 files of ~60 KB in 30 day partitions, a few deletes. */
    public static Shape demo(int formatVersion) {
      return new Shape(30, 5, 2500, formatVersion, 6, 40, true);
    }
  }

  private FragmentedTable() {}

  public static Table create(Catalog catalog, TableIdentifier id, Shape shape) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !id.namespace().isEmpty()
        && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(Namespace.of(id.namespace().levels()));
    }
    PartitionSpec spec =
        shape.partitioned()
            ? PartitionSpec.builderFor(SCHEMA).day("ordered_at").build()
            : PartitionSpec.unpartitioned();
    Table table =
        catalog.createTable(
            id,
            SCHEMA,
            spec,
            Map.of(
                TableProperties.FORMAT_VERSION, Integer.toString(shape.formatVersion()),
                TableProperties.PARQUET_COMPRESSION, "zstd"));

    Random random = new Random(42);
    List<DataFile> written = new ArrayList<>();
    long orderId = 0;
    for (int batch = 0; batch < shape.filesPerDay(); batch++) {
      for (int day = 0; day < Math.max(1, shape.days()); day++) {
        List<Record> rows = new ArrayList<>(shape.rowsPerFile());
        for (int i = 0; i < shape.rowsPerFile(); i++) {
          rows.add(order(orderId++, day, batch, shape.filesPerDay(), random));
        }
        DataFile file = writeDataFile(table, rows, batch * 1000 + day);
        table.newAppend().appendFile(file).commit();
        written.add(file);
      }
    }
    addPositionDeletes(table, written, shape);
    addEqualityDeletes(table, shape, orderId, random);
    return table;
  }

  /** An order of {@code day}, in the batch's slice of that day so the file holds one day only. */
  private static Record order(long orderId, int day, int batch, int batchesPerDay, Random random) {
    int slice = 24 * 3600 / Math.max(1, batchesPerDay);
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("order_id", orderId);
    row.setField("customer_id", (long) random.nextInt(50_000));
    row.setField("region", REGIONS[random.nextInt(REGIONS.length)]);
    row.setField(
        "amount", BigDecimal.valueOf(random.nextInt(1_000_000), 2).setScale(2, RoundingMode.UNNECESSARY));
    row.setField(
        "ordered_at",
        FIRST_DAY.plusDays(day).plusSeconds((long) batch * slice + random.nextInt(slice)));
    // a random token keeps rows about as incompressible as real order notes
    row.setField(
        "note",
        random.nextInt(10) == 0
            ? null
            : "order " + orderId + " ref " + Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()));
    return row;
  }

  private static DataFile writeDataFile(Table table, List<Record> rows, int taskId) {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, taskId).format(FileFormat.PARQUET).build();
    PartitionKey partition = partitionOf(table, rows.get(0));
    EncryptedOutputFile out = files.newOutputFile(table.spec(), partition);
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .build()
            .newDataWriter(out, table.spec(), partition);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static PartitionKey partitionOf(Table table, Record row) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return key;
  }

  /** Deletes every 50th row of a few files: a position delete file (v2) or a deletion vector (v3). */
  private static void addPositionDeletes(Table table, List<DataFile> files, Shape shape) {
    if (shape.positionDeletedFiles() == 0) {
      return;
    }
    RowDelta delta = table.newRowDelta();
    int step = Math.max(1, files.size() / shape.positionDeletedFiles());
    for (int i = 0, done = 0; i < files.size() && done < shape.positionDeletedFiles(); i += step, done++) {
      DataFile target = files.get(i);
      long[] positions = LongStream.iterate(0, p -> p < target.recordCount(), p -> p + 50).toArray();
      delta.addDeletes(positionDelete(table, target, positions));
    }
    delta.commit();
  }

  /**
   * Deletes some order ids by equality on {@code order_id} (from the newest {@code equalityDeleteWindow}
   * orders, or from all), one delete file per affected partition.
   */
  private static void addEqualityDeletes(Table table, Shape shape, long orderCount, Random random) {
    if (shape.equalityDeletedRows() == 0) {
      return;
    }
    Schema keySchema = table.schema().select("order_id");
    int[] keyIds = {table.schema().findField("order_id").fieldId()};
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(keyIds)
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 3, 0).format(FileFormat.PARQUET).build();
    // order ids map to days: id / rowsPerFile % days; group the deleted ids by their partition
    Map<Integer, List<Long>> idsByDay = new java.util.TreeMap<>();
    long window = shape.equalityDeleteWindow() <= 0 ? orderCount : Math.min(orderCount, shape.equalityDeleteWindow());
    for (int i = 0; i < shape.equalityDeletedRows(); i++) {
      long id = orderCount - window + (long) (random.nextDouble() * window);
      int day = shape.days() == 0 ? 0 : (int) ((id / shape.rowsPerFile()) % shape.days());
      idsByDay.computeIfAbsent(day, d -> new ArrayList<>()).add(id);
    }
    RowDelta delta = table.newRowDelta();
    for (Map.Entry<Integer, List<Long>> entry : idsByDay.entrySet()) {
      GenericRecord probe = GenericRecord.create(SCHEMA);
      probe.setField("ordered_at", FIRST_DAY.plusDays(entry.getKey()));
      PartitionKey partition = partitionOf(table, probe);
      EncryptedOutputFile out = outputs.newOutputFile(table.spec(), partition);
      EqualityDeleteWriter<Record> writer = writers.newEqualityDeleteWriter(out, table.spec(), partition);
      try (writer) {
        for (long id : entry.getValue()) {
          GenericRecord key = GenericRecord.create(keySchema);
          key.setField("order_id", id);
          writer.write(key);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      delta.addDeletes(writer.toDeleteFile());
    }
    delta.commit();
  }

  /**
   * Seed 003's last delete round, in one commit (so at the sequence number a later rewrite starts
   * from): per partition, a partition-scoped position delete over its first two files (every 10th row)
   * and an equality delete of three ids of its third file. A rewrite keeps the position deletes
   * "applying" by sequence number (the care step delete-cleanup is what removes them).
   */
  public static void addPartitionScopedDeletes(Table table) {
    Map<String, List<DataFile>> byPartition = new LinkedHashMap<>();
    Map<String, Long> firstId = new LinkedHashMap<>();
    long id = 0;
    for (DataFile file : dataFilesInAppendOrder(table)) {
      String partition = table.specs().get(file.specId()).partitionToPath(file.partition());
      byPartition.computeIfAbsent(partition, d -> new ArrayList<>()).add(file);
      firstId.put(file.location(), id);
      id += file.recordCount();
    }
    RowDelta delta = table.newRowDelta();
    for (List<DataFile> files : byPartition.values()) {
      if (files.size() < 3) {
        throw new IllegalArgumentException("every partition needs 3 files for its deletes; one has " + files.size());
      }
      delta.addDeletes(partitionScopedPositionDelete(table, files.subList(0, 2)));
      long first = firstId.get(files.get(2).location());
      delta.addDeletes(equalityDelete(table, files.get(2), first + 1, first + 2, first + 3));
    }
    delta.commit();
  }

  /** The data files each snapshot added, oldest snapshot first: the order ids were given in. */
  private static List<DataFile> dataFilesInAppendOrder(Table table) {
    List<DataFile> files = new ArrayList<>();
    for (org.apache.iceberg.Snapshot snapshot : table.snapshots()) {
      SnapshotChanges.builderFor(table).snapshot(snapshot).build().addedDataFiles().forEach(file -> files.add(file.copy()));
    }
    return files;
  }

  /** One position delete file deleting every 10th row of each of {@code targets} (one partition). */
  public static DeleteFile partitionScopedPositionDelete(Table table, List<DataFile> targets) {
    PartitionSpec spec = table.specs().get(targets.get(0).specId());
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 7, 7).format(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .build()
            .newPositionDeleteWriter(outputs.newOutputFile(spec, targets.get(0).partition()), spec, targets.get(0).partition());
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (DataFile target : targets.stream().sorted(Comparator.comparing(DataFile::location)).toList()) {
        for (long pos = 0; pos < target.recordCount(); pos += 10) {
          writer.write(delete.set(target.location(), pos));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result().deleteFiles().get(0);
  }

  /** Deletes {@code orderIds} by equality on {@code order_id}, in the partition of {@code partitionOf}. */
  public static DeleteFile equalityDelete(Table table, DataFile partitionOf, long... orderIds) {
    Schema keySchema = table.schema().select("order_id");
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {table.schema().findField("order_id").fieldId()})
            .equalityDeleteRowSchema(keySchema)
            .build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 9, 9).format(FileFormat.PARQUET).build();
    PartitionSpec spec = table.specs().get(partitionOf.specId());
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(
            outputs.newOutputFile(spec, partitionOf.partition()), spec, partitionOf.partition());
    try (writer) {
      for (long orderId : orderIds) {
        GenericRecord key = GenericRecord.create(keySchema);
        key.setField("order_id", orderId);
        writer.write(key);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** Deletes {@code positions} of {@code target}: a position delete file (v2) or a deletion vector (v3). */
  public static DeleteFile positionDelete(Table table, DataFile target, long... positions) {
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 4, System.nanoTime() % 100000).format(FileFormat.PARQUET).build();
    if (TableUtil.formatVersion(table) >= 3) {
      DVFileWriter dvs = new BaseDVFileWriter(outputs, path -> null);
      try (dvs) {
        for (long pos : positions) {
          dvs.delete(target.location(), pos, table.specs().get(target.specId()), target.partition());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return dvs.result().deleteFiles().get(0);
    }
    EncryptedOutputFile out = outputs.newOutputFile(table.specs().get(target.specId()), target.partition());
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .build()
            .newPositionDeleteWriter(out, table.specs().get(target.specId()), target.partition());
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (long pos : positions) {
        writer.write(delete.set(target.location(), pos));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result().deleteFiles().get(0);
  }

  /** Writes {@code rows} as one new data file of the table's current spec (for concurrent appends). */
  public static DataFile dataFile(Table table, List<Record> rows) {
    return writeDataFile(table, rows, (int) (System.nanoTime() % 100000));
  }

  /** A new order row for {@code day}, for tests that append. */
  public static Record newOrder(long orderId, int day) {
    return order(orderId, day, 0, 1, new Random(orderId));
  }
}
