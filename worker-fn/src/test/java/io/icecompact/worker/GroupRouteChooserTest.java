package io.icecompact.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PinnedSnapshot;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.RowOrder;
import io.icecompact.core.options.RewriteStrategy;
import io.icecompact.core.rewrite.ColumnarEligibility;
import io.icecompact.core.rewrite.RewritePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which route a group takes, for each kind of group and worker setting. */
class GroupRouteChooserTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  /** A directory with no usable space stands for a full spill disk (as in EngineSortTest). */
  private static final Path NO_SPACE = Path.of("/proc");

  @TempDir Path spill;

  @Test
  void aGroupInInputOrderWhoseFilesAreEligibleIsCopiedByColumnsWhateverThePlannerSaid() {
    Table table = table(Map.of());
    List<FileScanTask> tasks = tasks(table);

    // the planner's verdict in the plan is not what the worker goes by: it judges the live tasks
    // itself
    GroupRoute route =
        choose(WorkerSettings.defaults(), table, tasks, plan(table, tasks, null, "binpack"));

    assertThat(route).isInstanceOf(GroupRoute.Columnar.class);
    assertThat(route.reason()).isEqualTo(ColumnarEligibility.ELIGIBLE);
    assertThat(((GroupRoute.Columnar) route).group().inputs()).hasSize(2);
  }

  @Test
  void theGenericChoiceTakesTheGenericPathWithoutJudgingEligibility() {
    Table table = table(Map.of());
    List<FileScanTask> tasks = tasks(table);

    GroupRoute route =
        choose(
            WorkerSettings.defaults().withPathChoice(RewritePathChoice.GENERIC),
            table,
            tasks,
            plan(table, tasks, null, "binpack"));

    assertThat(route).isEqualTo(new GroupRoute.InputOrder("generic path requested"));
  }

  @Test
  void anIneligibleGroupTakesTheGenericPathSayingWhy() {
    Table table =
        table(Map.of(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "id", "true"));
    List<FileScanTask> tasks = tasks(table);

    GroupRoute route =
        choose(WorkerSettings.defaults(), table, tasks, plan(table, tasks, null, "binpack"));

    assertThat(route).isInstanceOf(GroupRoute.InputOrder.class);
    assertThat(route.reason())
        .isEqualTo(
            "table settings the columnar path does not apply: "
                + TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX
                + "id");
  }

  @Test
  void
      anOrderedGroupThatFitsTheSortHeapIsSortedInMemoryAsColumnsOrUnderTheGenericChoiceAsRecords() {
    Table table = table(Map.of());
    List<FileScanTask> tasks = tasks(table);
    RowOrder order = order(table);
    JobPlan plan = plan(table, tasks, order, "sort");
    String notColumnar = ColumnarEligibility.of(table, tasks, 0, order).reason();

    GroupRoute byDefault = choose(WorkerSettings.defaults(), table, tasks, plan);
    GroupRoute generic =
        choose(
            WorkerSettings.defaults().withPathChoice(RewritePathChoice.GENERIC),
            table,
            tasks,
            plan);

    assertThat(byDefault)
        .isEqualTo(
            new GroupRoute.SortedAsColumns(order, notColumnar + "; sorted in memory as columns"));
    assertThat(generic).isEqualTo(new GroupRoute.SortedAsRecords(order, notColumnar));
  }

  @Test
  void anOrderedGroupBeyondTheSortHeapIsSortedInRunsSpilledToTheSpillDirectory() {
    Table table = table(Map.of());
    List<FileScanTask> tasks = tasks(table);
    RowOrder order = order(table);

    GroupRoute route =
        choose(beyondTheHeap(spill), table, tasks, plan(table, tasks, order, "binpack"));

    assertThat(route).isInstanceOf(GroupRoute.SortedInSpilledRuns.class);
    GroupRoute.SortedInSpilledRuns runs = (GroupRoute.SortedInSpilledRuns) route;
    assertThat(runs.order()).isEqualTo(order);
    assertThat(runs.spill().directory()).isEqualTo(spill);
    assertThat(route.reason()).endsWith("; sorted beyond memory, in runs spilled to local disk");
  }

  @Test
  void beyondTheHeapAndTheSpillDiskBinPackKeepsInputOrderAndSortFails() {
    assumeTrue(NO_SPACE.toFile().getUsableSpace() == 0, "a directory with no usable space");
    Table table = table(Map.of());
    List<FileScanTask> tasks = tasks(table);
    RowOrder order = order(table);
    WorkerSettings full = beyondTheHeap(NO_SPACE.resolve("spill"));

    GroupRoute binPack = choose(full, table, tasks, plan(table, tasks, order, "binpack"));

    assertThat(binPack).isInstanceOf(GroupRoute.OrderNotKept.class);
    assertThat(binPack.reason())
        .startsWith("the table's sort order id ASC NULLS FIRST is not kept: ");
    assertThatThrownBy(() -> choose(full, table, tasks, plan(table, tasks, order, "sort")))
        .isInstanceOf(GroupRewriteException.class)
        .hasMessageContaining("too many to sort beyond memory in /proc/spill");
  }

  private static WorkerSettings beyondTheHeap(Path spillDirectory) {
    // a sort heap of one byte holds no group in memory
    return WorkerSettings.defaults().withSortHeapBytes(1).withSpillDirectory(spillDirectory);
  }

  private static GroupRoute choose(
      WorkerSettings settings, Table table, List<FileScanTask> tasks, JobPlan plan) {
    return new GroupRouteChooser(settings).choose(table, table.io(), plan, plan.group(0), tasks);
  }

  /** An unpartitioned v2 table of two Parquet files of 100 rows each. */
  private static Table table(Map<String, String> properties) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("mem", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    Map<String, String> withVersion = new HashMap<>(properties);
    withVersion.put(TableProperties.FORMAT_VERSION, "2");
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "t"), SCHEMA, PartitionSpec.unpartitioned(), withVersion);
    AppendFiles append = table.newAppend();
    for (int file = 0; file < 2; file++) {
      DataWriter<Record> writer =
          new GenericFileWriterFactory.Builder(table)
              .dataFileFormat(FileFormat.PARQUET)
              .dataSchema(SCHEMA)
              .build()
              .newDataWriter(
                  EncryptedFiles.plainAsEncryptedOutput(
                      table
                          .io()
                          .newOutputFile(table.location() + "/data/file-" + file + ".parquet")),
                  table.spec(),
                  null);
      try (writer) {
        for (long id = 0; id < 100; id++) {
          GenericRecord row = GenericRecord.create(SCHEMA);
          row.setField("id", id);
          row.setField("name", "row " + id);
          writer.write(row);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      append.appendFile(writer.toDataFile());
    }
    append.commit();
    return table;
  }

  private static List<FileScanTask> tasks(Table table) {
    return Lists.newArrayList(table.newScan().planFiles());
  }

  private static RowOrder order(Table table) {
    return RowOrder.linear(SortOrder.builderFor(SCHEMA).asc("id").build(), table.schema(), 0);
  }

  /**
   * The plan of one group of {@code tasks}, whose planner's verdict says the generic path, stale on
   * purpose.
   */
  private static JobPlan plan(
      Table table, List<FileScanTask> tasks, RowOrder order, String strategy) {
    long bytes = tasks.stream().mapToLong(task -> task.file().fileSizeInBytes()).sum();
    long rows = tasks.stream().mapToLong(task -> task.file().recordCount()).sum();
    PlannedGroup group =
        new PlannedGroup(
            0,
            "(unpartitioned)",
            tasks.size(),
            bytes,
            rows,
            0,
            512L << 20,
            RewritePath.GENERIC,
            "a stale verdict",
            null);
    PinnedSnapshot pinned =
        new PinnedSnapshot(
            table.currentSnapshot().snapshotId(),
            table.currentSnapshot().sequenceNumber(),
            table.location(),
            table.schema().schemaId(),
            table.spec().specId(),
            table.spec().specId(),
            2);
    assertThat(strategy)
        .isIn(RewriteStrategy.BINPACK.optionValue(), RewriteStrategy.SORT.optionValue());
    return new JobPlan(
        "job", "db.t", pinned, Map.of(), "true", 0, List.of(group), 0, strategy, order);
  }
}
