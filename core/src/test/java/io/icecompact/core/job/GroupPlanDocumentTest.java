package io.icecompact.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.PlanIntegrityException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A group document gives back the pinned snapshot's own scan tasks: every data file with its delete
 * files and the sequence numbers Iceberg's JSON leaves out, each delete file written once however
 * many files it applies to. What a worker rewrites from, and what the committer replaces.
 */
class GroupPlanDocumentTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "day", Types.StringType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("day").build();

  @Test
  void tasksRoundTripWithTheirDeletesAndSequenceNumbers() throws IOException {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      Table table = table(catalog);
      List<FileScanTask> planned = scan(table);
      assertThat(planned).hasSize(4);

      byte[] document = GroupPlanDocument.toBytes("job-1", 3, planned, table.specs());
      List<FileScanTask> read = GroupPlanDocument.tasks(document, "job-1", 3, "group 3");

      assertThat(read).hasSize(planned.size());
      for (int i = 0; i < planned.size(); i++) {
        FileScanTask before = planned.get(i);
        FileScanTask after = read.get(i);
        assertThat(describe(after.file())).isEqualTo(describe(before.file()));
        assertThat(after.file().dataSequenceNumber()).isNotNull();
        assertThat(after.deletes().stream().map(GroupPlanDocumentTest::describe).toList())
            .isEqualTo(before.deletes().stream().map(GroupPlanDocumentTest::describe).toList());
        assertThat(after.spec()).isEqualTo(before.spec());
        assertThat(after.schema().asStruct()).isEqualTo(before.schema().asStruct());
        assertThat(after.length()).isEqualTo(before.length());
      }
      // the equality delete applies to the two files of day 1 (committed before it), once in the
      // document
      String text = new String(document, StandardCharsets.UTF_8);
      assertThat(read.stream().filter(t -> !t.deletes().isEmpty()).count()).isEqualTo(3);
      assertThat(text.split("memory-eq-deletes-1.parquet", -1)).hasSize(2);
    }
  }

  @Test
  void aDocumentOfAnotherJobOrGroupIsRefused() throws IOException {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      Table table = table(catalog);
      byte[] document = GroupPlanDocument.toBytes("job-1", 3, scan(table), table.specs());

      assertThatThrownBy(() -> GroupPlanDocument.tasks(document, "job-2", 3, "group 3"))
          .isInstanceOf(PlanIntegrityException.class)
          .hasMessage("group 3 is group 3 of job job-1, not group 3 of job job-2");
      assertThatThrownBy(() -> GroupPlanDocument.tasks(document, "job-1", 4, "group 4"))
          .isInstanceOf(PlanIntegrityException.class)
          .hasMessage("group 4 is group 3 of job job-1, not group 4 of job job-1");
      assertThatThrownBy(
              () ->
                  GroupPlanDocument.tasks(
                      "{\"job_id\"".getBytes(StandardCharsets.UTF_8), "job-1", 3, "g"))
          .isInstanceOf(PlanIntegrityException.class)
          .hasMessageStartingWith("Cannot parse g: ");
    }
  }

  /**
   * Day 1: two files, then an equality delete; day 2: a file with a position delete, then a new
   * file.
   */
  private static Table table(InMemoryCatalog catalog) {
    catalog.initialize("memory", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "t"),
            SCHEMA,
            SPEC,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    DataFile a = dataFile("a", "day=1");
    DataFile b = dataFile("b", "day=1");
    DataFile c = dataFile("c", "day=2");
    table.newAppend().appendFile(a).appendFile(b).appendFile(c).commit();
    DeleteFile equality =
        FileMetadata.deleteFileBuilder(SPEC)
            .ofEqualityDeletes(1)
            .withPath("memory-eq-deletes-1.parquet")
            .withFormat(FileFormat.PARQUET)
            .withPartitionPath("day=1")
            .withFileSizeInBytes(40)
            .withRecordCount(2)
            .build();
    DeleteFile position =
        FileMetadata.deleteFileBuilder(SPEC)
            .ofPositionDeletes()
            .withPath("memory-pos-deletes-c.parquet")
            .withFormat(FileFormat.PARQUET)
            .withPartitionPath("day=2")
            .withFileSizeInBytes(30)
            .withRecordCount(1)
            .withReferencedDataFile(c.location())
            .build();
    table.newRowDelta().addDeletes(equality).addDeletes(position).commit();
    table.newAppend().appendFile(dataFile("d", "day=2")).commit();
    return table;
  }

  private static List<FileScanTask> scan(Table table) throws IOException {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> scanned = table.newScan().ignoreResiduals().planFiles()) {
      scanned.forEach(tasks::add);
    }
    tasks.sort((x, y) -> x.file().location().compareTo(y.file().location()));
    return tasks;
  }

  private static String describe(ContentFile<?> file) {
    return String.join(
        " ",
        file.location(),
        file.content().name(),
        String.valueOf(file.specId()),
        file.partition().toString(),
        String.valueOf(file.recordCount()),
        String.valueOf(file.fileSizeInBytes()),
        String.valueOf(file.dataSequenceNumber()),
        String.valueOf(file.fileSequenceNumber()),
        String.valueOf(file.equalityFieldIds()));
  }

  private static DataFile dataFile(String name, String partition) {
    return DataFiles.builder(SPEC)
        .withPath("memory-" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartitionPath(partition)
        .withFileSizeInBytes(100)
        .withRecordCount(10)
        .build();
  }
}
