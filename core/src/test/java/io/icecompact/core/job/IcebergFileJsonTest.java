package io.icecompact.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Float and double identity partition values that are not finite, signed zeros and nulls survive
 * the plan's and the results' JSON exactly, as stored documents (written and read by {@link
 * JobJson}).
 */
class IcebergFileJsonTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "d", Types.DoubleType.get()),
          Types.NestedField.optional(2, "f", Types.FloatType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("d").identity("f").build();
  private static final Object[][] VALUES = {
    {Double.NaN, Float.NaN},
    {Double.POSITIVE_INFINITY, Float.POSITIVE_INFINITY},
    {Double.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY},
    {-0.0d, -0.0f},
    {0.0d, 0.0f},
    {null, null},
    {1.5d, 0.1f},
  };

  @Test
  void scanTasksOfNonFinitePartitionsRoundTripThroughThePlan() throws IOException {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("memory", Map.of());
      catalog.createNamespace(Namespace.of("db"));
      Table table =
          catalog.createTable(
              TableIdentifier.of("db", "t"),
              SCHEMA,
              SPEC,
              Map.of(TableProperties.FORMAT_VERSION, "2"));
      AppendFiles append = table.newAppend();
      RowDelta deletes = table.newRowDelta();
      for (int i = 0; i < VALUES.length; i++) {
        DataFile file = dataFile("data-" + i, partition(VALUES[i]));
        append.appendFile(file);
        deletes.addDeletes(positionDelete("deletes-" + i, file));
      }
      append.commit();
      deletes.commit();
      List<FileScanTask> planned = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(planned::add);
      }
      assertThat(planned).hasSize(VALUES.length);

      byte[] document = GroupPlanDocument.toBytes("job", 0, planned, table.specs());
      List<FileScanTask> read = GroupPlanDocument.tasks(document, "job", 0, "group document");

      assertThat(read).hasSize(planned.size());
      for (int i = 0; i < planned.size(); i++) {
        FileScanTask before = planned.get(i);
        FileScanTask after = read.get(i);
        assertThat(after.file().location()).isEqualTo(before.file().location());
        assertThat(values(after.file().partition())).isEqualTo(values(before.file().partition()));
        assertThat(after.deletes()).hasSize(1);
        assertThat(values(after.deletes().get(0).partition()))
            .isEqualTo(values(before.file().partition()));
        assertThat(after.start()).isEqualTo(before.start());
        assertThat(after.length()).isEqualTo(before.length());
        assertThat(after.spec()).isEqualTo(before.spec());
      }
      // every row of VALUES is read back, each value with its exact bits (NaN, signs of zeros and
      // infinities)
      assertThat(read.stream().map(task -> values(task.file().partition())))
          .containsExactlyInAnyOrderElementsOf(Arrays.stream(VALUES).map(Arrays::asList).toList());
    }
  }

  @Test
  void outputFilesOfNonFinitePartitionsRoundTripThroughTheResult() {
    for (Object[] value : VALUES) {
      DataFile file = dataFile("out", partition(value));
      JsonNode tree = JobJson.tree(ContentFileParser.toJson(file, SPEC));
      JsonNode stored = JobJson.fromBytes(JobJson.toBytes(tree), JsonNode.class, "result");

      DataFile read = (DataFile) IcebergFileJson.contentFile(stored, Map.of(SPEC.specId(), SPEC));

      assertThat(values(read.partition())).isEqualTo(Arrays.asList(value));
    }
  }

  @Test
  void theStringNanInAStringPartitionStaysAString() {
    Schema schema = new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));
    PartitionSpec spec = PartitionSpec.builderFor(schema).identity("s").build();
    PartitionData partition = new PartitionData(spec.partitionType());
    partition.set(0, "NaN");
    DataFile file =
        DataFiles.builder(spec)
            .withPath("memory-s.parquet")
            .withFormat(FileFormat.PARQUET)
            .withPartition(partition)
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();
    JsonNode tree = JobJson.tree(ContentFileParser.toJson(file, spec));

    DataFile read = (DataFile) IcebergFileJson.contentFile(tree, Map.of(spec.specId(), spec));

    assertThat(read.partition().get(0, CharSequence.class).toString()).isEqualTo("NaN");
  }

  /** Boxed values: Double.equals and Float.equals tell NaN, -0.0 and 0.0 apart by their bits. */
  private static List<Object> values(StructLike partition) {
    return Arrays.asList(partition.get(0, Double.class), partition.get(1, Float.class));
  }

  private static PartitionData partition(Object[] values) {
    PartitionData partition = new PartitionData(SPEC.partitionType());
    partition.set(0, values[0]);
    partition.set(1, values[1]);
    return partition;
  }

  private static DataFile dataFile(String name, StructLike partition) {
    return DataFiles.builder(SPEC)
        .withPath("memory-" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withFileSizeInBytes(100)
        .withRecordCount(10)
        .build();
  }

  private static DeleteFile positionDelete(String name, DataFile target) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withPath("memory-" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(target.partition())
        .withFileSizeInBytes(50)
        .withRecordCount(1)
        .withReferencedDataFile(target.location())
        .build();
  }
}
