package io.icecompact.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PinnedSnapshotTasksTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("region").build();

  @TempDir Path dir;
  private Table table;
  private long snapshotId;
  private String metadataLocation;

  @BeforeEach
  void table() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("mem", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    table =
        catalog.createTable(
            TableIdentifier.of("db", "t"),
            SCHEMA,
            SPEC,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    DataFile eu1 = dataFile("region=eu", "eu-1");
    DataFile eu2 = dataFile("region=eu", "eu-2");
    DataFile us1 = dataFile("region=us", "us-1");
    table.newAppend().appendFile(eu1).appendFile(eu2).appendFile(us1).commit();
    table
        .newRowDelta()
        .addDeletes(
            FileMetadata.deleteFileBuilder(SPEC)
                .ofPositionDeletes()
                .withPath(dir.resolve("eu-deletes.parquet").toString())
                .withPartitionPath("region=eu")
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .withFormat("parquet")
                .build())
        .commit();
    snapshotId = table.currentSnapshot().snapshotId();
    metadataLocation = table.location() + "/metadata/current";
  }

  @Test
  void firstGroupOfAJobScansItsPartitionsAndLaterGroupsShareOneWholeScan() {
    PinnedSnapshotTasks cache = new PinnedSnapshotTasks(100);
    Expression all = Expressions.alwaysTrue();

    assertThat(ask(cache, all)).isEmpty();
    Map<String, FileScanTask> whole = ask(cache, all).orElseThrow();
    assertThat(ask(cache, all).orElseThrow()).isSameAs(whole);

    assertThat(whole.keySet())
        .containsExactlyInAnyOrder(location("eu-1"), location("eu-2"), location("us-1"));
    assertThat(deletes(whole.get(location("eu-1"))))
        .containsExactly(dir.resolve("eu-deletes.parquet").toString());
    assertThat(deletes(whole.get(location("us-1")))).isEmpty();
  }

  @Test
  void wholeScanGivesTheSameTasksAsThePartitionScan() {
    PinnedSnapshotTasks cache = new PinnedSnapshotTasks(100);
    ask(cache, Expressions.alwaysTrue());
    Map<String, FileScanTask> whole = ask(cache, Expressions.alwaysTrue()).orElseThrow();
    List<FileScanTask> planned = List.of(whole.get(location("eu-2")), whole.get(location("us-1")));

    List<FileScanTask> fromWhole =
        LiveTaskResolver.resolve(
            table,
            snapshotId,
            Expressions.alwaysTrue(),
            planned,
            Optional.of(whole),
            Long.MAX_VALUE);
    List<FileScanTask> fromPartitions =
        LiveTaskResolver.resolve(
            table, snapshotId, Expressions.alwaysTrue(), planned, Optional.empty(), Long.MAX_VALUE);

    assertThat(summary(fromWhole)).isEqualTo(summary(fromPartitions)).hasSize(2);
  }

  @Test
  void aCrossCheckThatWouldReadMoreManifestBytesThanItsBudgetKeepsThePlannedTasks() {
    PinnedSnapshotTasks cache = new PinnedSnapshotTasks(100);
    ask(cache, Expressions.alwaysTrue());
    Map<String, FileScanTask> whole = ask(cache, Expressions.alwaysTrue()).orElseThrow();
    List<FileScanTask> planned = List.of(whole.get(location("eu-1")), whole.get(location("us-1")));
    long manifestBytes = ManifestsToRead.bytes(table, snapshotId, Expressions.alwaysTrue());
    assertThat(manifestBytes).isPositive();
    // partition summaries prune every manifest for a region no file has
    assertThat(ManifestsToRead.bytes(table, snapshotId, Expressions.equal("region", "asia")))
        .isZero();

    List<FileScanTask> asPlanned =
        LiveTaskResolver.resolve(
            table,
            snapshotId,
            Expressions.alwaysTrue(),
            planned,
            Optional.empty(),
            manifestBytes - 1);
    List<FileScanTask> crossChecked =
        LiveTaskResolver.resolve(
            table, snapshotId, Expressions.alwaysTrue(), planned, Optional.empty(), manifestBytes);

    assertThat(asPlanned).isSameAs(planned);
    assertThat(crossChecked).isNotSameAs(planned);
    assertThat(crossChecked.get(0)).isNotSameAs(planned.get(0));
    assertThat(summary(crossChecked)).isEqualTo(summary(planned));
  }

  @Test
  void snapshotWithMoreDataFilesThanTheLimitIsNeverScannedWhole() {
    PinnedSnapshotTasks cache = new PinnedSnapshotTasks(2);

    assertThat(ask(cache, Expressions.alwaysTrue())).isEmpty();
    assertThat(ask(cache, Expressions.alwaysTrue())).isEmpty();
  }

  @Test
  void planFilterNarrowsTheWholeScanAndAnotherJobStartsOver() {
    PinnedSnapshotTasks cache = new PinnedSnapshotTasks(100);
    Expression us = Expressions.equal("region", "us");

    ask(cache, us);
    assertThat(ask(cache, us).orElseThrow().keySet()).containsExactly(location("us-1"));

    assertThat(ask(cache, Expressions.alwaysTrue())).isEmpty();
  }

  @Test
  void heapBoundsTheFilesKept() {
    PinnedSnapshotTasks small = PinnedSnapshotTasks.forHeap(64L << 20);
    ask(small, Expressions.alwaysTrue());
    // 64 MB / 16 / 64 KB = 64 files allowed: this 3-file snapshot is kept
    assertThat(ask(small, Expressions.alwaysTrue())).isPresent();

    PinnedSnapshotTasks tiny = PinnedSnapshotTasks.forHeap(1L << 20);
    ask(tiny, Expressions.alwaysTrue());
    assertThat(ask(tiny, Expressions.alwaysTrue())).isEmpty();
  }

  private Optional<Map<String, FileScanTask>> ask(PinnedSnapshotTasks cache, Expression filter) {
    return cache.tasks(
        table, metadataLocation, snapshotId, ExpressionParser.toJson(filter), filter);
  }

  private DataFile dataFile(String partition, String name) {
    return DataFiles.builder(SPEC)
        .withPath(location(name))
        .withPartitionPath(partition)
        .withFileSizeInBytes(1000)
        .withRecordCount(10)
        .withFormat("parquet")
        .build();
  }

  private String location(String name) {
    return dir.resolve(name + ".parquet").toString();
  }

  private static List<String> deletes(FileScanTask task) {
    return task.deletes().stream().map(DeleteFile::location).toList();
  }

  private static List<String> summary(List<FileScanTask> tasks) {
    return tasks.stream()
        .map(
            task ->
                task.file().location()
                    + " <- "
                    + task.deletes().stream()
                        .map(ContentFile::location)
                        .sorted()
                        .collect(Collectors.joining(",")))
        .toList();
  }
}
