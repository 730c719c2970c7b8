package io.icecompact.planner.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PartitionMap;

/**
 * Which data files of the current snapshot live equality deletes apply to, and the delete files a
 * job touching those data files would read, from the manifests only.
 *
 * <p>An equality delete applies to a data file as Iceberg's scan decides it by metadata: the delete
 * has a higher data sequence number and is global (unpartitioned spec) or in the data file's spec
 * and partition. Column bounds are not compared (the scan would prune a few more pairs), so the
 * data files found are an upper bound. The delete files read with them are those applying equality
 * deletes, the position deletes and deletion vectors naming one of them, and the partition-scoped
 * position delete files of their partitions that are not older than them.
 *
 * <p>Read only for a table with live equality delete files: it reads the data manifests' {@code
 * column_sizes}, which {@link TableHealth} leaves out for every other table.
 *
 * @param equalityDeleteFiles live equality delete files that apply to at least one data file
 * @param equalityKeys their records (keys)
 * @param equalityFieldIds the field ids those files compare (the union of their {@code
 *     equality_ids})
 * @param dataFiles data files at least one of them applies to
 * @param dataBytes their total size
 * @param dataRows their records, before deletes
 * @param keyColumnBytes the bytes of the equality fields' columns in those files: from the
 *     manifests' {@code column_sizes}, or the whole file where they lack a size for one of the
 *     fields
 * @param filesWithColumnSizes of {@code dataFiles}, those whose key bytes came from {@code
 *     column_sizes}
 * @param deleteFiles the delete files a job over those data files reads (equality and position;
 *     each deletion vector counts as one, also where several share a Puffin file)
 * @param deleteBytes their total size (a deletion vector's blob size)
 * @param partitionBytes the data bytes of each partition those data files are in
 */
public record EqualityDeleteScan(
    long equalityDeleteFiles,
    long equalityKeys,
    Set<Integer> equalityFieldIds,
    long dataFiles,
    long dataBytes,
    long dataRows,
    long keyColumnBytes,
    long filesWithColumnSizes,
    long deleteFiles,
    long deleteBytes,
    List<Long> partitionBytes) {

  public EqualityDeleteScan {
    equalityFieldIds = Set.copyOf(equalityFieldIds);
    partitionBytes = List.copyOf(partitionBytes);
  }

  private static final List<String> DELETE_COLUMNS =
      List.of(
          "content",
          "file_path",
          "file_format", // a deletion vector is a Puffin file's blob
          "file_size_in_bytes",
          "record_count",
          "partition",
          "equality_ids",
          "referenced_data_file",
          "content_offset",
          "content_size_in_bytes",
          // a v2 file-scoped position delete file names its data file by equal path bounds
          "lower_bounds",
          "upper_bounds");

  /**
   * {@code nan_value_counts} is there for {@code column_sizes}' sake: a reader whose projection
   * holds no statistics column other than {@code record_count} drops every statistic, column sizes
   * included ({@code ManifestReader.dropStats}); NaN counts are the smallest of them.
   */
  private static final List<String> DATA_COLUMNS =
      List.of(
          "file_path",
          "file_size_in_bytes",
          "record_count",
          "partition",
          "column_sizes",
          "nan_value_counts");

  /**
   * One live delete file (or deletion vector), as much of it as the estimate needs.
   *
   * @param location its location, with the blob's offset for a deletion vector
   * @param bytes what a reader reads of it
   */
  private record Delete(
      String location,
      FileContent content,
      long sequence,
      long bytes,
      long records,
      List<Integer> equalityIds,
      String referencedDataFile) {}

  /**
   * The data files {@code snapshot}'s live equality deletes apply to; null when none applies to any
   * (no equality delete file, or each is older than every data file of its partition).
   *
   * @param rowFilter the table's {@code icecompact.where}: only data files it may select count, by
   *     partition and column bounds as the conversion's scan selects them (Iceberg's manifest row
   *     filter); a job that cannot reach a table's deletes is not worth choosing
   */
  public static EqualityDeleteScan of(Table table, Snapshot snapshot, Expression rowFilter) {
    FileIO io = table.io();
    Map<Integer, PartitionSpec> specs = table.specs();
    PartitionMap<List<Delete>> deletesByPartition = PartitionMap.create(specs);
    List<Delete> globalEqualityDeletes = new ArrayList<>();
    Map<String, List<Delete>> byDataFile = new HashMap<>();
    for (ManifestFile manifest : snapshot.deleteManifests(io)) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, io, specs).select(DELETE_COLUMNS)) {
        for (DeleteFile file : reader) {
          boolean equality = file.content() == FileContent.EQUALITY_DELETES;
          String referenced = equality ? null : ContentFileUtil.referencedDataFileLocation(file);
          Delete delete =
              new Delete(
                  readKey(file),
                  file.content(),
                  file.dataSequenceNumber(),
                  bytesRead(file),
                  file.recordCount(),
                  equality ? List.copyOf(file.equalityFieldIds()) : List.of(),
                  referenced);
          if (referenced != null) {
            byDataFile.computeIfAbsent(referenced, path -> new ArrayList<>()).add(delete);
          } else if (equality && specs.get(file.specId()).isUnpartitioned()) {
            globalEqualityDeletes.add(delete);
          } else {
            List<Delete> list = deletesByPartition.get(file.specId(), file.partition());
            if (list == null) {
              list = new ArrayList<>();
              // the reader reuses its entries: the map keeps a copy of the partition tuple
              deletesByPartition.put(file.specId(), file.copyWithoutStats().partition(), list);
            }
            list.add(delete);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    boolean anyEquality =
        !globalEqualityDeletes.isEmpty()
            || deletesByPartition.values().stream()
                .flatMap(List::stream)
                .anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES);
    if (!anyEquality) {
      return null;
    }

    Map<String, Delete> applyingEquality = new HashMap<>();
    Map<String, Delete> read = new HashMap<>();
    PartitionMap<long[]> bytesByPartition = PartitionMap.create(specs);
    long dataFiles = 0;
    long dataBytes = 0;
    long dataRows = 0;
    long keyBytes = 0;
    long withSizes = 0;
    for (ManifestFile manifest : snapshot.dataManifests(io)) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, io, specs).filterRows(rowFilter).select(DATA_COLUMNS)) {
        for (DataFile file : reader) {
          long sequence = file.dataSequenceNumber();
          List<Delete> inPartition = deletesByPartition.get(file.specId(), file.partition());
          List<Delete> equality = new ArrayList<>();
          for (Delete delete : globalEqualityDeletes) {
            if (delete.sequence() > sequence) {
              equality.add(delete);
            }
          }
          if (inPartition != null) {
            for (Delete delete : inPartition) {
              if (delete.content() == FileContent.EQUALITY_DELETES
                  && delete.sequence() > sequence) {
                equality.add(delete);
              }
            }
          }
          if (equality.isEmpty()) {
            continue;
          }
          dataFiles++;
          dataBytes += file.fileSizeInBytes();
          dataRows += file.recordCount();
          long[] partitionBytes = bytesByPartition.get(file.specId(), file.partition());
          if (partitionBytes == null) {
            partitionBytes = new long[1];
            bytesByPartition.put(
                file.specId(), file.copyWithoutStats().partition(), partitionBytes);
          }
          partitionBytes[0] += file.fileSizeInBytes();

          Set<Integer> keyIds = new HashSet<>();
          for (Delete delete : equality) {
            applyingEquality.putIfAbsent(delete.location(), delete);
            read.putIfAbsent(delete.location(), delete);
            keyIds.addAll(delete.equalityIds());
          }
          Long sized = keyColumnBytes(file.columnSizes(), keyIds);
          if (sized != null) {
            keyBytes += sized;
            withSizes++;
          } else {
            keyBytes += file.fileSizeInBytes();
          }
          // position deletes: those naming this file, and partition-scoped ones not older than it
          for (Delete delete : byDataFile.getOrDefault(file.location(), List.of())) {
            read.putIfAbsent(delete.location(), delete);
          }
          if (inPartition != null) {
            for (Delete delete : inPartition) {
              if (delete.content() == FileContent.POSITION_DELETES
                  && delete.sequence() >= sequence) {
                read.putIfAbsent(delete.location(), delete);
              }
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (dataFiles == 0) {
      return null;
    }
    Set<Integer> fieldIds = new HashSet<>();
    applyingEquality.values().forEach(delete -> fieldIds.addAll(delete.equalityIds()));
    List<Long> partitionBytes = new ArrayList<>();
    bytesByPartition.values().forEach(bytes -> partitionBytes.add(bytes[0]));
    return new EqualityDeleteScan(
        applyingEquality.size(),
        applyingEquality.values().stream().mapToLong(Delete::records).sum(),
        fieldIds,
        dataFiles,
        dataBytes,
        dataRows,
        keyBytes,
        withSizes,
        read.size(),
        read.values().stream().mapToLong(Delete::bytes).sum(),
        partitionBytes);
  }

  /**
   * A deletion vector is one blob of a Puffin file that holds others: each is its own ranged read,
   * so it is counted by its offset in the file.
   */
  private static String readKey(DeleteFile file) {
    return ContentFileUtil.isDV(file)
        ? file.location() + "#" + file.contentOffset()
        : file.location();
  }

  /** The bytes a reader reads of a delete file: a deletion vector's blob, else the whole file. */
  private static long bytesRead(DeleteFile file) {
    return ContentFileUtil.isDV(file) ? file.contentSizeInBytes() : file.fileSizeInBytes();
  }

  /** The sum of the key columns' sizes, or null when a key column has no size in the manifest. */
  private static Long keyColumnBytes(Map<Integer, Long> columnSizes, Set<Integer> keyIds) {
    if (columnSizes == null || keyIds.isEmpty()) {
      return null;
    }
    long sum = 0;
    for (int id : keyIds) {
      Long size = columnSizes.get(id);
      if (size == null) {
        return null;
      }
      sum += size;
    }
    return sum;
  }
}
