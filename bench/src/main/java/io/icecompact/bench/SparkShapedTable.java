package io.icecompact.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The streaming table of issue 11, as Spark 3.5 + Iceberg 1.10 leaves it: one micro-batch per
 * commit writing one file into each day partition ({@link SparkLayoutWriter}), then one
 * merge-on-read {@code DELETE} of 1% of the rows, which Spark writes as one position delete file
 * per data file (v2, file-scoped, Iceberg 1.10's default) or one deletion vector per data file
 * (v3).
 */
public final class SparkShapedTable {
  private static final String[] REGIONS = {"eu", "us", "apac", "latam"};
  private static final LocalDate FIRST_DAY = LocalDate.of(2026, 6, 1);
  private static final long MICROS_PER_DAY = 86_400L * 1_000_000;

  /**
   * Size of the table: {@code days} partitions of {@code filesPerDay} files of {@code rowsPerFile}.
   */
  public record Size(String name, int days, int filesPerDay, int rowsPerFile) {
    /** S, M, or DAYSxFILESxROWS (e.g. 2x3x100 for a quick run). */
    public static Size named(String name) {
      return switch (name) {
        case "S" -> new Size("S", 30, 5, 10_000);
        case "M" -> new Size("M", 30, 40, 10_000);
        default -> {
          String[] parts = name.split("x");
          try {
            if (parts.length == 3) {
              Size size =
                  new Size(
                      name,
                      Integer.parseInt(parts[0]),
                      Integer.parseInt(parts[1]),
                      Integer.parseInt(parts[2]));
              if (size.days() > 0 && size.filesPerDay() > 0 && size.rowsPerFile() >= 100) {
                yield size;
              }
            }
          } catch (NumberFormatException e) {
            // named below
          }
          throw new IllegalArgumentException(
              "Unknown size '" + name + "': use S, M or DAYSxFILESxROWS (at least 1x1x100)");
        }
      };
    }

    long rows() {
      return (long) days * filesPerDay * rowsPerFile;
    }
  }

  private SparkShapedTable() {}

  static Table create(
      Catalog catalog,
      TableIdentifier id,
      Size size,
      int formatVersion,
      CompressionCodecName codec) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(Namespace.of(id.namespace().levels()));
    }
    PartitionSpec spec =
        PartitionSpec.builderFor(SparkLayoutWriter.SCHEMA).day("ordered_at").build();
    Table table =
        catalog.createTable(
            id,
            SparkLayoutWriter.SCHEMA,
            spec,
            Map.of(
                TableProperties.FORMAT_VERSION, Integer.toString(formatVersion),
                TableProperties.PARQUET_COMPRESSION,
                    codec.name().toLowerCase(java.util.Locale.ROOT),
                TableProperties.DELETE_MODE, "merge-on-read"));
    Random random = new Random(42);
    MetricsConfig metrics = MetricsConfig.forTable(table);
    List<DataFile> written = new ArrayList<>();
    long orderId = 0;
    for (int batch = 0; batch < size.filesPerDay(); batch++) {
      AppendFiles append = table.newFastAppend();
      for (int day = 0; day < size.days(); day++) {
        DataFile file = writeFile(table, metrics, codec, size, batch, day, orderId, random);
        orderId += size.rowsPerFile();
        append.appendFile(file);
        written.add(file);
      }
      append.commit();
    }
    deleteOnePercent(table, written, random);
    return table;
  }

  private static DataFile writeFile(
      Table table,
      MetricsConfig metrics,
      CompressionCodecName codec,
      Size size,
      int batch,
      int day,
      long firstOrderId,
      Random random) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    partition.set(0, (int) FIRST_DAY.plusDays(day).toEpochDay());
    // Spark's task file name: <partition id>-<task id>-<operation uuid>-<file count>.parquet
    String name =
        String.format(
            "%05d-%d-%s-%05d.parquet", day, batch * size.days() + day, UUID.randomUUID(), 1);
    String location = table.locationProvider().newDataLocation(table.spec(), partition, name);
    long dayStart =
        FIRST_DAY.plusDays(day).atStartOfDay().toEpochSecond(ZoneOffset.UTC) * 1_000_000;
    long slice = MICROS_PER_DAY / size.filesPerDay();
    SparkLayoutWriter.Order row = new SparkLayoutWriter.Order();
    try (ParquetWriter<SparkLayoutWriter.Order> writer =
        SparkLayoutWriter.open(localPath(location), codec)) {
      for (int i = 0; i < size.rowsPerFile(); i++) {
        row.orderId = firstOrderId + i;
        row.customerId = random.nextInt(50_000);
        row.region = REGIONS[random.nextInt(REGIONS.length)];
        row.amountCents = random.nextInt(1_000_000);
        row.orderedAtMicros = dayStart + batch * slice + (long) (random.nextDouble() * slice);
        row.note = random.nextInt(10) == 0 ? null : "ref " + Long.toHexString(random.nextLong());
        writer.write(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return DataFiles.builder(table.spec())
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withFileSizeInBytes(table.io().newInputFile(location).getLength())
        .withMetrics(ParquetUtil.fileMetrics(table.io().newInputFile(location), metrics))
        .build();
  }

  /**
   * Deletes 1% of every file's rows at random positions in one commit: per data file a position
   * delete file (v2) or a deletion vector (v3, one Puffin file per partition, as one Spark task per
   * partition writes them).
   */
  private static void deleteOnePercent(Table table, List<DataFile> files, Random random) {
    RowDelta delta = table.newRowDelta();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 7, 0).format(FileFormat.PARQUET).build();
    boolean dvs = TableUtil.formatVersion(table) >= 3;
    Map<Integer, List<DataFile>> byPartition = new java.util.TreeMap<>();
    files.forEach(
        file ->
            byPartition
                .computeIfAbsent(file.partition().get(0, Integer.class), day -> new ArrayList<>())
                .add(file));
    for (List<DataFile> partitionFiles : byPartition.values()) {
      if (dvs) {
        DVFileWriter writer = new BaseDVFileWriter(outputs, path -> null);
        try (writer) {
          for (DataFile file : partitionFiles) {
            for (long pos : positions(file, random)) {
              writer.delete(file.location(), pos, table.spec(), file.partition());
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        writer.result().deleteFiles().forEach(delta::addDeletes);
      } else {
        for (DataFile file : partitionFiles) {
          delta.addDeletes(positionDeleteFile(table, outputs, file, positions(file, random)));
        }
      }
    }
    delta.commit();
  }

  private static long[] positions(DataFile file, Random random) {
    long rows = file.recordCount();
    return LongStream.range(0, rows / 100).map(i -> i * 100 + random.nextInt(100)).toArray();
  }

  private static org.apache.iceberg.DeleteFile positionDeleteFile(
      Table table, OutputFileFactory outputs, DataFile target, long[] positions) {
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .build()
            .newPositionDeleteWriter(
                outputs.newOutputFile(table.spec(), target.partition()),
                table.spec(),
                target.partition());
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

  private static Path localPath(String location) {
    return location.startsWith("file:") ? Paths.get(URI.create(location)) : Paths.get(location);
  }
}
