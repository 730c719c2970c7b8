package io.icecompact.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Another writer deleting one row of a data file by a deletion vector, as a v3 writer does it:
 * merged with the file's DV (if it has one), which its commit replaces.
 */
final class ConcurrentDeletionVector {
  private ConcurrentDeletionVector() {}

  /** Deletes the first row of {@code task}'s file that no position delete deletes yet. */
  static void deleteFirstLiveRow(Table table, FileScanTask task) {
    List<DeleteFile> positional =
        task.deletes().stream().filter(d -> d.content() == FileContent.POSITION_DELETES).toList();
    PositionDeleteIndex existing =
        new BaseDeleteLoader(file -> table.io().newInputFile(file.location()))
            .loadPositionDeletes(positional, task.file().location());
    long position = 0;
    while (existing.isDeleted(position)) {
      position++;
    }
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 99, 0)
            .operationId("concurrent-writer")
            .format(FileFormat.PUFFIN)
            .build();
    BaseDVFileWriter writer =
        new BaseDVFileWriter(
            files,
            path -> path.equals(task.file().location()) && !existing.isEmpty() ? existing : null);
    PartitionSpec spec = table.specs().get(task.file().specId());
    try (writer) {
      writer.delete(task.file().location(), position, spec, task.file().partition());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteWriteResult result = writer.result();
    // validated from the snapshot it read, as a writer does (from none, Iceberg counts the file's
    // earlier DVs as concurrent)
    RowDelta delta = table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId());
    result.deleteFiles().forEach(delta::addDeletes);
    result.rewrittenDeleteFiles().forEach(delta::removeDeletes);
    delta.commit();
  }
}
