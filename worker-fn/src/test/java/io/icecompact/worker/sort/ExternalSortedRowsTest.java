package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.job.RowOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The external sort gives the in-memory sort's row sequence (ties included), each row with the
 * partition it came with and its v3 row lineage, spilling one run per {@code runRows} rows and
 * leaving no file.
 */
class ExternalSortedRowsTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.required(3, "seq", Types.IntegerType.get()),
          MetadataColumns.ROW_ID,
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);
  private static final int ROWS = 1000;
  private static final int RUN_ROWS = 64;

  @TempDir Path spillDirectory;

  private static RowOrder order(String kind) {
    return kind.equals("linear")
        ? RowOrder.linear(SortOrder.builderFor(SCHEMA).desc("name").asc("id").build(), SCHEMA, 0)
        : RowOrder.zOrder(List.of("id", "name"), 8, Integer.MAX_VALUE);
  }

  /** Few distinct keys, so many ties, which only a stable sort and merge keep in input order. */
  private static List<Record> rows() {
    Random random = new Random(14);
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      Record row = GenericRecord.create(SCHEMA);
      row.set(0, random.nextInt(10) == 0 ? null : (long) random.nextInt(40) - 20);
      row.set(1, random.nextInt(10) == 0 ? null : "n" + random.nextInt(5));
      row.set(2, i);
      row.set(3, random.nextInt(10) == 0 ? null : 1000L + i);
      row.set(4, 7L);
      rows.add(row);
    }
    return rows;
  }

  /** Partitions by identity (as files hand theirs over): two objects, and null for "compute it". */
  private static StructLike partitionOf(Record row, List<StructLike> partitions) {
    int seq = (Integer) row.get(2);
    return seq % 3 == 2 ? null : partitions.get(seq % 3);
  }

  private record Sorted(List<List<Object>> values, List<StructLike> partitions) {}

  private static Sorted drain(RowSorter sorter, List<StructLike> partitions) {
    rows().forEach(row -> sorter.add(row, partitionOf(row, partitions)));
    List<List<Object>> values = new ArrayList<>();
    List<StructLike> partitionsOut = new ArrayList<>();
    sorter.drainTo(
        (row, partition) -> {
          List<Object> columns = new ArrayList<>();
          for (int i = 0; i < SCHEMA.columns().size(); i++) {
            columns.add(row.get(i, Object.class));
          }
          values.add(columns);
          partitionsOut.add(partition);
        });
    return new Sorted(values, partitionsOut);
  }

  @ParameterizedTest
  @ValueSource(strings = {"linear", "zorder"})
  void spilledRunsMergeIntoTheInMemorySequenceAndAreDeleted(String kind) throws IOException {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("name").build();
    List<StructLike> partitions =
        List.of(new PartitionData(spec.partitionType()), new PartitionData(spec.partitionType()));
    Sorted inMemory = drain(new SortedRows(SCHEMA, order(kind), null), partitions);

    ExternalSortedRows external =
        new ExternalSortedRows(SCHEMA, order(kind), null, RUN_ROWS, spillDirectory);
    Sorted merged;
    try (external) {
      merged = drain(external, partitions);
      assertThat(external.runs()).isEqualTo((ROWS + RUN_ROWS - 1) / RUN_ROWS);
      assertThat(filesIn(external.directory())).hasSize(external.runs());
      assertThat(external.spilledBytes()).isPositive();
    }

    assertThat(merged.values()).hasSize(ROWS).containsExactlyElementsOf(inMemory.values());
    for (int i = 0; i < ROWS; i++) {
      assertThat(merged.partitions().get(i)).isSameAs(inMemory.partitions().get(i));
    }
    assertThat(filesIn(spillDirectory)).as("runs and their directory are deleted").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"linear", "zorder"})
  void aGroupWithinOneRunIsNotSpilled(String kind) throws IOException {
    List<StructLike> partitions =
        List.of(new PartitionData(Types.StructType.of()), new PartitionData(Types.StructType.of()));
    Sorted inMemory = drain(new SortedRows(SCHEMA, order(kind), null), partitions);
    try (ExternalSortedRows external =
        new ExternalSortedRows(SCHEMA, order(kind), null, ROWS + 1, spillDirectory)) {
      assertThat(drain(external, partitions).values()).containsExactlyElementsOf(inMemory.values());
      assertThat(external.runs()).isZero();
    }
    assertThat(filesIn(spillDirectory)).isEmpty();
  }

  @Test
  void aFailedMergeLeavesNoRun() throws IOException {
    ExternalSortedRows external =
        new ExternalSortedRows(SCHEMA, order("linear"), null, RUN_ROWS, spillDirectory);
    rows().forEach(row -> external.add(row, null));
    int[] written = {0};
    assertThatThrownBy(
            () ->
                external.drainTo(
                    (row, partition) -> {
                      if (++written[0] == 100) {
                        throw new IllegalStateException("output failed");
                      }
                    }))
        .hasMessageContaining("output failed");
    assertThat(filesIn(external.directory())).isNotEmpty();

    external.close();

    assertThat(filesIn(spillDirectory)).isEmpty();
  }

  /**
   * Runs a dead process left, or this one's no sort uses, are deleted; a running sort's are not.
   */
  @Test
  void abandonedRunsAreDeletedAndRunningOnesKept() throws IOException {
    Path dead =
        Files.createDirectory(
            spillDirectory.resolve("icecompact-sort-" + Integer.MAX_VALUE + "-1"));
    Files.writeString(dead.resolve("run-00000.avro"), "left by a worker that timed out");
    Path ours =
        Files.createDirectory(
            spillDirectory.resolve("icecompact-sort-" + ProcessHandle.current().pid() + "-2"));
    Path other = Files.createDirectory(spillDirectory.resolve("not-ours"));
    try (ExternalSortedRows running =
        new ExternalSortedRows(SCHEMA, order("linear"), null, RUN_ROWS, spillDirectory)) {
      rows().forEach(row -> running.add(row, null));

      assertThat(ExternalSortedRows.deleteAbandoned(spillDirectory)).isEqualTo(2);

      assertThat(filesIn(spillDirectory)).containsExactlyInAnyOrder(running.directory(), other);
      assertThat(filesIn(running.directory())).hasSize(running.runs());
    }
    assertThat(dead).doesNotExist();
    assertThat(ours).doesNotExist();
  }

  private static List<Path> filesIn(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.toList();
    }
  }
}
