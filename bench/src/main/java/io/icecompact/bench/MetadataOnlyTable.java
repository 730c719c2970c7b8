package io.icecompact.bench;

import io.icecompact.fixtures.FragmentedTable;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * A table whose data files exist only in its metadata: v2, day partitions of {@link
 * FragmentedTable}'s schema, files of a few MB with the column metrics a Parquet writer records,
 * committed by fast appends of {@link #FILES_PER_COMMIT} files as a streaming writer's compaction
 * backlog accumulates. Nothing is written under {@code data/}: the table exists to measure what
 * grows with the number of files (planning, the plan's documents, committing), which never opens a
 * data file.
 */
public final class MetadataOnlyTable {
  /**
   * Files per fast append: one commit per 100,000 files keeps each commit's file list in memory
   * small.
   */
  public static final int FILES_PER_COMMIT = 100_000;

  /** Day partitions of a table of at least 100,000 files. */
  public static final int MAX_DAYS = 1_000;

  static final int MIN_FILE_BYTES = 2 * 1024 * 1024;
  static final int MAX_FILE_BYTES = 6 * 1024 * 1024;

  /** About what a row of the schema takes compressed, so a file's row count fits its size. */
  static final int BYTES_PER_ROW = 40;

  private static final LocalDate FIRST_DAY = LocalDate.of(2024, 1, 1);
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private MetadataOnlyTable() {}

  /**
   * 1,000 day partitions, or one per 100 files for a smaller table, so every day has a group's
   * worth.
   */
  public static int days(int files) {
    return Math.max(1, Math.min(MAX_DAYS, files / 100));
  }

  /** Creates table {@code id} with {@code files} data files spread evenly over {@link #days}. */
  public static Table create(Catalog catalog, TableIdentifier id, int files) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !id.namespace().isEmpty()
        && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(Namespace.of(id.namespace().levels()));
    }
    PartitionSpec spec = PartitionSpec.builderFor(FragmentedTable.SCHEMA).day("ordered_at").build();
    Table table =
        catalog.createTable(
            id, FragmentedTable.SCHEMA, spec, Map.of(TableProperties.FORMAT_VERSION, "2"));
    int days = days(files);
    StructLike[] partitions = new StructLike[days];
    String[] partitionPaths = new String[days];
    for (int day = 0; day < days; day++) {
      GenericRecord partition = GenericRecord.create(spec.partitionType());
      partition.set(0, (int) FIRST_DAY.plusDays(day).toEpochDay());
      partitions[day] = partition;
      partitionPaths[day] = spec.partitionToPath(partition);
    }
    String dataLocation = table.locationProvider().newDataLocation("x");
    String dataFolder = dataLocation.substring(0, dataLocation.length() - 1);
    Random random = new Random(42);
    long orderId = 0;
    for (int from = 0; from < files; from += FILES_PER_COMMIT) {
      AppendFiles append = table.newFastAppend();
      for (int file = from; file < Math.min(files, from + FILES_PER_COMMIT); file++) {
        // a streaming writer's batches land in every day, so every commit's manifests span all days
        int day = file % days;
        long bytes = MIN_FILE_BYTES + random.nextInt(MAX_FILE_BYTES - MIN_FILE_BYTES);
        long rows = bytes / BYTES_PER_ROW;
        append.appendFile(
            DataFiles.builder(spec)
                .withPath(
                    String.format(
                        "%s%s/%05d-%d-metadata-only.parquet",
                        dataFolder, partitionPaths[day], file / FILES_PER_COMMIT, file))
                .withFormat(FileFormat.PARQUET)
                .withPartition(partitions[day])
                .withFileSizeInBytes(bytes)
                .withRecordCount(rows)
                .withMetrics(
                    metrics(
                        rows,
                        bytes,
                        orderId,
                        FIRST_DAY.plusDays(day).toEpochDay() * MICROS_PER_DAY))
                .withSplitOffsets(List.of(4L))
                .build());
        orderId += rows;
      }
      append.commit();
    }
    return table;
  }

  /**
   * What Iceberg's Parquet writer records: sizes, counts and bounds of every column (bounds of the
   * ids and time).
   */
  private static Metrics metrics(long rows, long bytes, long firstOrderId, long dayMicros) {
    Map<Integer, Long> sizes = new HashMap<>();
    Map<Integer, Long> values = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    for (Types.NestedField field : FragmentedTable.SCHEMA.columns()) {
      sizes.put(field.fieldId(), bytes / FragmentedTable.SCHEMA.columns().size());
      values.put(field.fieldId(), rows);
      nulls.put(field.fieldId(), 0L);
    }
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    lower.put(1, Conversions.toByteBuffer(Types.LongType.get(), firstOrderId));
    upper.put(1, Conversions.toByteBuffer(Types.LongType.get(), firstOrderId + rows - 1));
    lower.put(5, Conversions.toByteBuffer(Types.TimestampType.withZone(), dayMicros));
    upper.put(
        5,
        Conversions.toByteBuffer(Types.TimestampType.withZone(), dayMicros + MICROS_PER_DAY - 1));
    return new Metrics(rows, sizes, values, nulls, Map.of(), lower, upper);
  }
}
