package io.icecompact.committer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CommitVerifier} on snapshots committed to a real (in-memory) Iceberg table: only the
 * metadata matters to it, so the data and delete files are described, not written. A correct commit
 * in which Iceberg drops dangling deletes verifies; commits that remove a delete file that still
 * applies, or keep one the job removed, are caught.
 */
class CommitVerifierTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  private InMemoryCatalog catalog;

  @BeforeEach
  void openCatalog() {
    catalog = new InMemoryCatalog();
    catalog.initialize("memory", Map.of());
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void closeCatalog() throws Exception {
    catalog.close();
  }

  @Test
  void equalityDeleteOlderThanEveryLiveFileDroppedByIcebergIsVerified() {
    Table table = table(2);
    DataFile old = dataFile("old", 10);
    table.newAppend().appendFile(old).commit(); // seq 1
    DeleteFile equality = equalityDelete("eq");
    table.newRowDelta().addDeletes(equality).commit(); // seq 2, applies to 'old'
    DataFile newer = dataFile("newer", 5);
    table.newAppend().appendFile(newer).commit(); // seq 3
    DataFile compacted = dataFile("compacted", 14);
    table
        .newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .deleteFile(old)
        .deleteFile(newer)
        .addFile(compacted)
        .dataSequenceNumber(3)
        .commit();
    Snapshot replace = table.currentSnapshot();
    assertThat(replace.summary()).containsEntry("removed-delete-files", "1");

    assertThat(CommitVerifier.verify(table, replace, expected(2, 1, 15, 14, Set.of()))).isEmpty();
  }

  @Test
  void removingAnEqualityDeleteThatStillAppliesIsCaught() {
    Table table = table(2);
    DataFile kept = dataFile("kept", 10);
    DataFile old = dataFile("old", 10);
    table.newAppend().appendFile(kept).appendFile(old).commit(); // seq 1
    DeleteFile equality = equalityDelete("eq");
    table.newRowDelta().addDeletes(equality).commit(); // seq 2, applies to both
    DataFile compacted = dataFile("compacted", 9);
    // a committer bug: it drops the equality delete although 'kept' (seq 1) stays live
    table
        .newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .deleteFile(old)
        .deleteFile(equality)
        .addFile(compacted)
        .dataSequenceNumber(1)
        .commit();
    Snapshot replace = table.currentSnapshot();

    assertThat(CommitVerifier.verify(table, replace, expected(1, 1, 10, 9, Set.of())))
        .containsExactly(
            "snapshot "
                + replace.snapshotId()
                + " removed delete file memory-eq.parquet, which the job did"
                + " not remove and which is not dangling: its data sequence number 2 is not below the lowest"
                + " live data sequence number 1 (equality delete)",
            "snapshot " + replace.snapshotId() + " summary removed-delete-files=1, expected 0");
  }

  @Test
  void aDeleteFileTheJobRemovedButTheSnapshotKeptIsCaught() {
    Table table = table(2);
    DataFile old = dataFile("old", 10);
    table.newAppend().appendFile(old).commit();
    DeleteFile positions = positionDelete("pos", old);
    table.newRowDelta().addDeletes(positions).commit();
    DataFile other = dataFile("other", 3);
    table.newAppend().appendFile(other).commit();
    // the snapshot rewrites 'other' only; the job claims it removed the position deletes of 'old'
    table
        .newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .deleteFile(other)
        .addFile(dataFile("compacted", 3))
        .dataSequenceNumber(3)
        .commit();
    Snapshot replace = table.currentSnapshot();

    assertThat(
            CommitVerifier.verify(
                table, replace, expected(1, 1, 3, 3, Set.of(CommitVerifier.key(positions)))))
        .containsExactly(
            "snapshot "
                + replace.snapshotId()
                + " did not remove delete file memory-pos.parquet, which the job"
                + " removed",
            "snapshot " + replace.snapshotId() + " summary removed-delete-files=0, expected 1");
  }

  @Test
  void v3DeletionVectorOfARemovedDataFileDroppedByIcebergIsVerified() {
    Table table = table(3);
    DataFile first = dataFile("first", 10);
    DataFile second = dataFile("second", 10);
    table.newAppend().appendFile(first).appendFile(second).commit();
    DeleteFile firstDv = deletionVector("dvs", first, 4);
    DeleteFile secondDv = deletionVector("dvs", second, 40);
    table.newRowDelta().addDeletes(firstDv).addDeletes(secondDv).commit();
    // the job removes the DV of 'first' itself; Iceberg drops the DV of 'second', whose file goes
    // too
    table
        .newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .deleteFile(first)
        .deleteFile(second)
        .deleteFile(firstDv)
        .addFile(dataFile("compacted", 18))
        .dataSequenceNumber(1)
        .commit();
    Snapshot replace = table.currentSnapshot();
    assertThat(replace.summary()).containsEntry("removed-delete-files", "2");

    assertThat(
            CommitVerifier.verify(
                table, replace, expected(2, 1, 20, 18, Set.of(CommitVerifier.key(firstDv)))))
        .isEmpty();
  }

  private Table table(int formatVersion) {
    return catalog.createTable(
        TableIdentifier.of("db", "t" + formatVersion),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)));
  }

  private static CommitVerifier.Expected expected(
      int removedData,
      int addedData,
      long removedRows,
      long addedRows,
      Set<String> removedDeletes) {
    return new CommitVerifier.Expected(
        removedData, addedData, removedRows, addedRows, removedDeletes);
  }

  private static DataFile dataFile(String name, long rows) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("memory-" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100 + rows)
        .withRecordCount(rows)
        .build();
  }

  private static DeleteFile equalityDelete(String name) {
    return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofEqualityDeletes(1)
        .withPath("memory-" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(50)
        .withRecordCount(1)
        .build();
  }

  private static DeleteFile positionDelete(String name, DataFile target) {
    return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofPositionDeletes()
        .withPath("memory-" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(50)
        .withRecordCount(1)
        .withReferencedDataFile(target.location())
        .build();
  }

  private static DeleteFile deletionVector(String puffin, DataFile target, long offset) {
    return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofPositionDeletes()
        .withPath("memory-" + puffin + ".puffin")
        .withFormat(FileFormat.PUFFIN)
        .withFileSizeInBytes(200)
        .withRecordCount(1)
        .withReferencedDataFile(target.location())
        .withContentOffset(offset)
        .withContentSizeInBytes(20)
        .build();
  }
}
