package io.icecompact.worker.convert;

import io.icecompact.core.table.TableFormats;
import io.icecompact.worker.columnar.EqualityDeletedRows;
import io.icecompact.worker.columnar.PositionDeleteAppender;
import io.icecompact.worker.deletes.FileEqualityDeletes;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import io.icecompact.worker.input.InputFileRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.ContentFileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the equality deletes that apply to a group's data files into deletes by position, without
 * rewriting the data files: for each, reads only its equality key columns and row positions and
 * matches the keys against the group's {@link io.icecompact.worker.deletes.EqualityDeleteIndex}
 * (sequence numbers and scopes as a rewrite honours them: {@link #find}), then writes the matched
 * positions as Iceberg's writers lay them out: on v2 one position delete file per data file, sorted
 * by position ({@link #writePositionDeletes}); on v3 a deletion vector per data file merged with
 * its existing position deletes, the group's in one Puffin file ({@link #writeDeletionVectors}).
 *
 * <p>Once every data file an equality delete file applies to is converted, the delete file can be
 * replaced by the new position deletes: the live rows stay the same, and readers no longer join
 * every data file against the table's equality deletes.
 */
public final class EqualityDeleteConverter {
  private static final Logger LOG = LoggerFactory.getLogger(EqualityDeleteConverter.class);

  private final Table table;
  private final GroupDeleteLoader deletes;
  private final FileFormat deleteFormat;
  private final OutputFileFactory deleteFiles;
  private final OutputFileFactory puffinFiles;

  /**
   * @param table the table at the pinned snapshot the tasks were planned from
   * @param deletes the group's delete loader, over the tasks to convert
   * @param partitionId with {@code taskId} and {@code jobId}, names the output files as the
   *     worker's rewrite names its own (Iceberg's {@link OutputFileFactory}, in the table's data
   *     location)
   */
  public EqualityDeleteConverter(
      Table table, GroupDeleteLoader deletes, int partitionId, long taskId, String jobId) {
    this.table = table;
    this.deletes = deletes;
    this.deleteFormat = TableFormats.deleteFormat(table);
    this.deleteFiles = outputFiles(table, partitionId, taskId, jobId, deleteFormat);
    this.puffinFiles = outputFiles(table, partitionId, taskId, jobId, FileFormat.PUFFIN);
  }

  private static OutputFileFactory outputFiles(
      Table table, int partitionId, long taskId, String jobId, FileFormat format) {
    return OutputFileFactory.builderFor(table, partitionId, taskId)
        .operationId(jobId)
        .format(format)
        .build();
  }

  /** Whether the table's deletes by position are deletion vectors (v3), written per group. */
  public boolean writesDeletionVectors() {
    return TableUtil.formatVersion(table) >= 3;
  }

  /**
   * Finds the rows of {@code task}'s data file its equality deletes delete and no position delete
   * already does; writes nothing. The whole file is read, whatever split of it the task covers: one
   * task per data file. Safe to call from several threads.
   */
  public FoundDeletes find(FileScanTask task) {
    DataFile file = task.file();
    List<DeleteFile> equalityFiles =
        task.deletes().stream()
            .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
            .toList();
    List<DeleteFile> positional =
        task.deletes().stream()
            .filter(delete -> delete.content() == FileContent.POSITION_DELETES)
            .toList();
    FileEqualityDeletes equality = deletes.equalityDeletes().forFile(task, table.schema());
    if (equality.isEmpty()) {
      return new FoundDeletes(file, new long[0], null, positional, 0, equalityFiles);
    }
    Set<Integer> keyIds = new HashSet<>();
    equality
        .keys()
        .forEach(key -> key.keySchema().columns().forEach(field -> keyIds.add(field.fieldId())));
    PositionDeleteIndex existing = deletes.loadPositionDeletes(positional, file.location());
    CountedInputFile input =
        new CountedInputFile(table.io().newInputFile(file.location(), file.fileSizeInBytes()));
    long[] found = deletedPositions(task, input, equality, keyIds, existing);
    return new FoundDeletes(file, found, existing, positional, input.bytesRead(), equalityFiles);
  }

  /**
   * v2: writes one position delete file for the found rows of a data file. As the v3 writer merges
   * DVs, a position delete file of this data file alone is merged into the new one and replaced, so
   * a reader opens one delete file per data file, not two. Safe to call from several threads.
   */
  public ConvertedDeletes writePositionDeletes(FoundDeletes found) {
    if (writesDeletionVectors()) {
      throw new IllegalStateException("A v3 table's deletes are deletion vectors");
    }
    DataFile file = found.dataFile();
    if (found.positions().length == 0) {
      return found.converted(null, List.of());
    }
    List<DeleteFile> fileScoped =
        found.appliedPositionDeletes().stream()
            .filter(
                delete ->
                    file.location().equals(ContentFileUtil.referencedDataFileLocation(delete)))
            .toList();
    DeleteFile written =
        writePositionDeletes(
            file,
            table.specs().get(file.specId()),
            withPositionsOf(fileScoped, file, found.positions()));
    return found.converted(written, fileScoped);
  }

  /**
   * v3: writes the deletion vectors of all {@code found} data files into one Puffin file, as
   * Iceberg's writers lay out a task's DVs (one file a group, not one a data file: fewer files to
   * write, list and open). Each DV holds the file's new positions merged with its existing position
   * deletes; the merged DVs and file-scoped position delete files are listed as replaced (at most
   * one DV per data file). A partition-scoped v2 file applies to other data files too, so it stays
   * (the DV shadows it for this file). In {@code found}'s order.
   */
  public List<ConvertedDeletes> writeDeletionVectors(List<FoundDeletes> found) {
    if (!writesDeletionVectors()) {
      throw new IllegalStateException("A v2 table's deletes are position delete files");
    }
    Map<String, FoundDeletes> byLocation = new HashMap<>();
    found.forEach(file -> byLocation.put(file.dataFile().location(), file));
    BaseDVFileWriter writer =
        new BaseDVFileWriter(
            puffinFiles,
            path -> {
              FoundDeletes file = byLocation.get(path);
              return file == null || file.existing() == null || file.existing().isEmpty()
                  ? null
                  : file.existing();
            });
    try (writer) {
      for (FoundDeletes file : found) {
        DataFile data = file.dataFile();
        PartitionSpec spec = table.specs().get(data.specId());
        for (long position : file.positions()) {
          writer.delete(data.location(), position, spec, data.partition());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the deletion vectors of a group", e);
    }
    DeleteWriteResult result = writer.result();
    Map<String, DeleteFile> vectors = new HashMap<>();
    result.deleteFiles().forEach(dv -> vectors.put(dv.referencedDataFile(), dv));
    Map<String, List<DeleteFile>> replaced = new HashMap<>();
    result
        .rewrittenDeleteFiles()
        .forEach(
            delete ->
                replaced
                    .computeIfAbsent(
                        ContentFileUtil.referencedDataFileLocation(delete),
                        unused -> new ArrayList<>())
                    .add(delete));
    List<ConvertedDeletes> converted = new ArrayList<>(found.size());
    for (FoundDeletes file : found) {
      String location = file.dataFile().location();
      converted.add(
          file.converted(vectors.get(location), replaced.getOrDefault(location, List.of())));
    }
    return converted;
  }

  /** {@code found} and the positions {@code deleteFiles} delete in {@code file}, ascending. */
  private long[] withPositionsOf(List<DeleteFile> deleteFiles, DataFile file, long[] found) {
    if (deleteFiles.isEmpty()) {
      return found;
    }
    PositionDeleteIndex theirs = deletes.loadPositionDeletes(deleteFiles, file.location());
    long[] merged = Arrays.copyOf(found, Math.toIntExact(found.length + theirs.cardinality()));
    int[] count = {found.length};
    theirs.forEach(position -> merged[count[0]++] = position);
    Arrays.sort(merged, 0, count[0]);
    return Arrays.copyOf(merged, count[0]);
  }

  /**
   * The positions, ascending, of the rows an equality delete newer than the file deletes and no
   * position delete already does. A Parquet file's key columns are read with parquet-java's column
   * readers ({@link EqualityDeletedRows}); an ORC or Avro file, or a Parquet file whose key columns
   * need Iceberg's schema projection (a key column added after the file was written, a promoted
   * type), is read with Iceberg's generic reader for its format.
   */
  private long[] deletedPositions(
      FileScanTask task,
      InputFile input,
      FileEqualityDeletes equality,
      Set<Integer> keyIds,
      PositionDeleteIndex existing) {
    DataFile file = task.file();
    long[][] positions = {new long[0]};
    InputFileRead.checked(
        task,
        () -> {
          if (file.format() != FileFormat.PARQUET) {
            LOG.debug(
                "Reading the keys of {} with the generic reader: it is a {} file",
                file.location(),
                file.format());
            return genericDeletedPositions(
                input, file.format(), equality, keyIds, existing, positions);
          }
          Optional<EqualityDeletedRows.Found> found =
              EqualityDeletedRows.find(
                  input,
                  equality,
                  table.schema(),
                  why ->
                      LOG.debug(
                          "Reading the keys of {} with the generic reader: {}",
                          file.location(),
                          why));
          if (found.isEmpty()) {
            return genericDeletedPositions(
                input, FileFormat.PARQUET, equality, keyIds, existing, positions);
          }
          BitSet deleted = found.get().deleted();
          long[] kept = new long[deleted.cardinality()];
          int count = 0;
          for (int position = deleted.nextSetBit(0);
              position >= 0;
              position = deleted.nextSetBit(position + 1)) {
            if (!existing.isDeleted(position)) {
              kept[count++] = position;
            }
          }
          positions[0] = Arrays.copyOf(kept, count);
          return new InputFileRead.Rows(found.get().rows(), found.get().rows() - count);
        });
    return positions[0];
  }

  /**
   * {@link #deletedPositions} through Iceberg's generic reader for {@code format}, which projects
   * the schema and fills in {@code _pos}.
   */
  private InputFileRead.Rows genericDeletedPositions(
      InputFile input,
      FileFormat format,
      FileEqualityDeletes equality,
      Set<Integer> keyIds,
      PositionDeleteIndex existing,
      long[][] positions)
      throws IOException {
    Schema keys = TypeUtil.select(table.schema(), keyIds);
    Schema readSchema = TypeUtil.join(keys, new Schema(MetadataColumns.ROW_POSITION));
    int positionField = keys.columns().size();
    InternalRecordWrapper internal = new InternalRecordWrapper(readSchema.asStruct());
    Predicate<StructLike> deleted = equality.deletedRows(readSchema);
    long[] found = new long[16];
    int count = 0;
    long read = 0;
    try (CloseableIterable<Record> rows = TableFormats.read(table, input, format, readSchema)) {
      for (Record row : rows) {
        read++;
        long position = (Long) row.get(positionField);
        if (!existing.isDeleted(position) && deleted.test(internal.wrap(row))) {
          if (count == found.length) {
            found = Arrays.copyOf(found, count * 2);
          }
          found[count++] = position;
        }
      }
    }
    positions[0] = Arrays.copyOf(found, count);
    return new InputFileRead.Rows(read, read - count);
  }

  /**
   * v2: one position delete file for the data file (file_path, pos), positions ascending, in the
   * table's delete format: Parquet by {@link PositionDeleteAppender}; ORC, Avro or an encrypted
   * table's by Iceberg's own writer.
   */
  private DeleteFile writePositionDeletes(DataFile file, PartitionSpec spec, long[] positions) {
    EncryptedOutputFile output = deleteFiles.newOutputFile(spec, file.partition());
    if (deleteFormat == FileFormat.PARQUET
        && (output.keyMetadata() == null || output.keyMetadata().buffer() == null)) {
      return PositionDeleteAppender.writeOneDataFile(
          output.encryptingOutputFile(),
          table.properties(),
          spec,
          file.partition(),
          file.location(),
          positions);
    }
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(deleteFormat)
            .build()
            .newPositionDeleteWriter(output, spec, file.partition());
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (long position : positions) {
        writer.write(delete.set(file.location(), position));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write position deletes of " + file.location(), e);
    }
    // Iceberg's writer names the data file only through file_path's bounds, which Avro files do
    // not keep: without the name, readers would apply the file to every data file of the partition
    return FileMetadata.deleteFileBuilder(spec)
        .copy(writer.toDeleteFile())
        .withReferencedDataFile(file.location())
        .build();
  }
}
