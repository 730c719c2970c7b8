package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.icecompact.committer.JobCommitter;
import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.FragmentedTable.Shape;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.WorkerSettings;
import io.icecompact.worker.sort.SortSpill;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ZOrderByteUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code strategy=sort}: every output file of a group read back in the order asked for, the files
 * of a partition covering disjoint ranges of a linear order, the live rows unchanged (v2 deletes,
 * v3 deletion vectors and row lineage), and bad orders refused with the table untouched. A group
 * beyond the sort heap is sorted in runs spilled to disk into the in-memory sequence, or, with no
 * room on the disk, refused (sort) or written in input order (bin-pack).
 */
class EngineSortTest extends EngineTestBase {
  private static final Path NO_SPACE = Path.of("/proc");

  /** 2 day partitions of 5 files of 1,000 rows, position and equality deletes. */
  private static Shape shape(int formatVersion) {
    return new Shape(2, 5, 1000, formatVersion, 2, 30, true);
  }

  /**
   * Small output files (about one per 1,000 rows, when the writer checks its size), every file
   * rewritten.
   */
  private static Map<String, String> sortOptions(String... more) {
    Map<String, String> options = options("rewrite-all", "true", "target-file-size-bytes", "4096");
    options.putAll(options(more));
    return options;
  }

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void linearSortWritesSortedFilesWithDisjointRangesAndKeepsEveryLiveRow(int formatVersion) {
    Table table = create(shape(formatVersion));
    Schema rows =
        formatVersion >= 3 ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema();
    Map<String, Long> before = LiveRows.multiset(table, rows);
    JobSpec spec = job(sortOptions("sort-order", "order_id DESC"));

    PlanSummary summary = new RewritePlanner(access).plan(spec.withJobIdIfAbsent());
    JobPlan plan = plan(summary);
    assertThat(plan.strategy()).isEqualTo("sort");
    assertThat(plan.rowOrder().sortOrder()).isEqualTo("order_id DESC NULLS LAST");
    assertThat(plan.groups())
        .hasSize(2)
        .allSatisfy(
            group ->
                assertThat(group.expectedRewritePathReason())
                    .isEqualTo(
                        "rows are written in sort order order_id DESC NULLS LAST: the columnar path keeps input"
                            + " row order"));
    JobResult result = runner().run(spec, summary);

    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    assertThat(result.groups())
        .allSatisfy(
            g ->
                assertThat(g.rewritePathReason())
                    .startsWith("rows are written in sort order order_id DESC"));
    assertThat(LiveRows.multiset(table, rows)).isEqualTo(before);
    Map<String, List<DataFile>> byPartition = outputsByPartition(table);
    assertThat(byPartition).hasSize(2);
    Comparator<Record> descending =
        Comparator.comparing((Record r) -> (Long) r.getField("order_id")).reversed();
    for (List<DataFile> files : byPartition.values()) {
      assertThat(files)
          .as("several files per partition, or ranges prove nothing")
          .hasSizeGreaterThan(2);
      for (DataFile file : files) {
        assertThat(LiveRows.storedOrder(table, file)).isSortedAccordingTo(descending);
        assertThat(file.sortOrderId())
            .as("the table has no sort order: unsorted, as Spark writes")
            .isZero();
      }
      assertDisjointOrderIdRanges(files);
    }
  }

  /**
   * Files of an older spec are sorted with the output partition first (as Spark) and split by it.
   */
  @Test
  void repartitionedGroupIsSortedWithinEachNewPartition() {
    Table table = create(shape(2));
    table.updateSpec().addField("region").commit();
    table.refresh();
    int newSpecId = table.spec().specId();
    Map<String, Long> before = LiveRows.multiset(table);

    JobResult result = run(job(sortOptions("sort-order", "order_id DESC")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.inputFiles()).isEqualTo(10));
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    Map<String, List<DataFile>> byPartition = outputsByPartition(table);
    assertThat(byPartition).hasSize(8); // 2 days x 4 regions
    Comparator<Record> descending =
        Comparator.comparing((Record r) -> (Long) r.getField("order_id")).reversed();
    for (List<DataFile> files : byPartition.values()) {
      for (DataFile file : files) {
        assertThat(file.specId()).isEqualTo(newSpecId);
        assertThat(LiveRows.storedOrder(table, file)).isSortedAccordingTo(descending);
      }
      assertDisjointOrderIdRanges(files);
    }
  }

  @Test
  void tablesOwnSortOrderIsTheDefaultAndItsIdIsOnTheFiles() {
    Table table = create(shape(2));
    table.replaceSortOrder().asc("region").desc("customer_id").commit();
    table.refresh();
    int orderId = table.sortOrder().orderId();
    Map<String, Long> before = LiveRows.multiset(table);

    JobResult result = run(job(sortOptions("strategy", "sort")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    Comparator<Record> regionThenCustomerDesc =
        Comparator.comparing(
                (Record r) -> (String) r.getField("region"),
                Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(
                Comparator.comparing((Record r) -> (Long) r.getField("customer_id")).reversed());
    for (DataFile file : liveDataFiles(table)) {
      assertThat(file.sortOrderId()).isEqualTo(orderId).isPositive();
      assertThat(LiveRows.storedOrder(table, file)).isSortedAccordingTo(regionThenCustomerDesc);
    }
  }

  /**
   * Bin-pack keeps a sorted table sorted (Spark's concatenates): a group that fits in memory is
   * sorted.
   */
  @Test
  void binpackOnASortedTableWritesInTheTablesOrder() {
    Table table = create(shape(2));
    table.replaceSortOrder().asc("customer_id").commit();
    table.refresh();
    Map<String, Long> before = LiveRows.multiset(table);

    JobResult result = run(job(options("rewrite-all", "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .allSatisfy(
            g ->
                assertThat(g.rewritePathReason())
                    .isEqualTo(
                        "rows are written in sort order customer_id ASC NULLS FIRST: the columnar path keeps input"
                            + " row order; sorted in memory as columns"));
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    assertThat(liveDataFiles(table))
        .hasSize(2)
        .allSatisfy(
            file -> {
              assertThat(file.sortOrderId()).isEqualTo(table.sortOrder().orderId());
              assertThat(LiveRows.storedOrder(table, file))
                  .isSortedAccordingTo(Comparator.comparing(r -> (Long) r.getField("customer_id")));
            });
  }

  /**
   * A group beyond the sort heap is sorted in runs spilled to disk and merged: the same row
   * sequence, file by file, as the in-memory sort of the same group, every live row kept (v3: row
   * lineage too), and the runs deleted afterwards.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"order_id DESC", "zorder(customer_id, order_id)"})
  void groupBeyondTheSortHeapIsSortedInSpilledRunsIntoTheInMemorySequence(
      String sortOrder, @TempDir Path spill) {
    Table table = create(shape(3));
    Schema rows = MetadataColumns.schemaWithRowLineage(table.schema());
    Map<String, Long> before = LiveRows.multiset(table, rows);
    JobSpec inMemorySpec = job(sortOptions("sort-order", sortOrder)).withJobIdIfAbsent();
    PlanSummary inMemorySummary = new RewritePlanner(access).plan(inMemorySpec);
    JobSpec spec = job(sortOptions("sort-order", sortOrder)).withJobIdIfAbsent();
    PlanSummary summary = new RewritePlanner(access).plan(spec);
    long smallestGroup =
        plan(summary).groups().stream().mapToLong(PlannedGroup::inputBytes).min().orElseThrow();

    // a heap of 8 times the group sorts a fifth of it in memory (1/40 of the heap): about 5 runs a
    // group
    GroupRewriter external = sortingWithin(8 * smallestGroup, spill);
    GroupRewriter inMemory = new GroupRewriter(access);
    for (int index : summary.groupIndexes()) {
      String partition = plan(summary).group(index).partition();
      int same =
          plan(inMemorySummary).groups().stream()
              .filter(group -> group.partition().equals(partition))
              .findFirst()
              .orElseThrow()
              .index();
      inMemory.rewrite(GroupRequest.of(inMemorySpec, inMemorySummary, same, 1));
      SortSpill.Spilled spilledBefore = external.spillStats();
      external.rewrite(GroupRequest.of(spec, summary, index, 1));
      int runs = external.spillStats().runs() - spilledBefore.runs();
      long spilled = external.spillStats().bytes() - spilledBefore.bytes();
      assertThat(groupResult(inMemorySummary, same).spilledBytes()).isZero();
      assertThat(groupResult(inMemorySummary, same).rewritePathReason()).doesNotContain("spilled");
      assertThat(groupResult(summary, index).rewritePathReason())
          .endsWith(
              ": the columnar path keeps input row order; sorted beyond memory, in runs spilled to local disk");
      assertThat(runs).as("runs of about a fifth of the group").isGreaterThanOrEqualTo(4);
      assertThat(groupResult(summary, index).spilledBytes()).isEqualTo(spilled).isPositive();
      long parquet = plan(summary).group(index).inputBytes();
      System.err.printf(
          "%s: group %d spilled %d runs, %,d bytes for %,d of Parquet (%.2f)%n",
          sortOrder, index, runs, spilled, parquet, (double) spilled / parquet);
      assertThat(spilled)
          .as("runs within the disk check's estimate")
          .isLessThanOrEqualTo(2 * parquet);
      assertThat(rowsInWriteOrder(table, outputLocations(summary, index)))
          .hasSizeGreaterThan(1000)
          .containsExactlyElementsOf(
              rowsInWriteOrder(table, outputLocations(inMemorySummary, same)));
    }
    assertThat(spill).as("the runs are deleted").isEmptyDirectory();
    JobResult result = new JobCommitter(access).commit(CommitRequest.of(spec, summary));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table, rows)).isEqualTo(before);
    // the job's result shows each group's spill, as its worker stored it
    assertThat(result.groups())
        .allSatisfy(
            group ->
                assertThat(group.spilledBytes())
                    .isEqualTo(groupResult(summary, group.groupIndex()).spilledBytes())
                    .isPositive());
  }

  /** Bin-pack keeps a sorted table's order beyond the sort heap too, sorting in spilled runs. */
  @Test
  void binpackOfAGroupBeyondTheSortHeapSortsInSpilledRuns(@TempDir Path spill) {
    Table table = create(shape(2));
    table.replaceSortOrder().asc("customer_id").commit();
    Map<String, Long> before = LiveRows.multiset(table);
    JobSpec spec = job(options("rewrite-all", "true")).withJobIdIfAbsent();
    PlanSummary summary = new RewritePlanner(access).plan(spec);

    GroupRewriter tiny = sortingWithin(400_000, spill);
    for (int index : summary.groupIndexes()) {
      tiny.rewrite(GroupRequest.of(spec, summary, index, 1));
      assertThat(groupResult(summary, index).rewritePathReason())
          .isEqualTo(
              "rows are written in sort order customer_id ASC NULLS FIRST: the columnar path keeps input"
                  + " row order; sorted beyond memory, in runs spilled to local disk");
    }
    JobResult result = new JobCommitter(access).commit(CommitRequest.of(spec, summary));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    table.refresh();
    assertThat(liveDataFiles(table))
        .hasSize(2)
        .allSatisfy(
            file -> {
              assertThat(file.sortOrderId()).isEqualTo(table.sortOrder().orderId());
              assertThat(LiveRows.storedOrder(table, file))
                  .isSortedAccordingTo(Comparator.comparing(r -> (Long) r.getField("customer_id")));
            });
    assertThat(spill).isEmptyDirectory();
  }

  /**
   * Under strategy=sort, a group beyond the sort heap whose runs would not fit on the spill disk
   * fails before writing a file. /proc stands for a full disk: it has no usable space.
   */
  @Test
  void sortOfAGroupBeyondTheSortHeapAndTheSpillDiskFailsWithoutWriting() {
    assumeTrue(NO_SPACE.toFile().getUsableSpace() == 0, "a directory with no usable space");
    Table table = create(shape(2));
    JobSpec spec = job(sortOptions("sort-order", "order_id")).withJobIdIfAbsent();
    PlanSummary summary = new RewritePlanner(access).plan(spec);

    GroupRewriter tiny = sortingWithin(4000, NO_SPACE.resolve("spill"));
    assertThatThrownBy(() -> tiny.rewrite(GroupRequest.of(spec, summary, 0, 1)))
        .isInstanceOf(GroupRewriteException.class)
        .hasMessageStartingWith("Group 0 holds ")
        .hasMessageContaining(
            "bytes of Parquet, too many to sort beyond memory in /proc/spill: its sorted runs take"
                + " about ")
        .hasMessageContaining(
            "and 0 bytes are free, 268,435,456 of them kept for the output's upload buffers: set"
                + " max-file-group-size-bytes to at most 0, or give the worker more ephemeral storage");
    assertThat(filesNamedFor(table, spec.jobId())).isEmpty();
  }

  /**
   * Bin-pack keeps a sorted table's order only where it can: with no room to spill, in input order.
   */
  @Test
  void binpackOfAGroupBeyondTheSortHeapAndTheSpillDiskKeepsInputOrderAndSaysSo() {
    assumeTrue(NO_SPACE.toFile().getUsableSpace() == 0, "a directory with no usable space");
    Table table = create(shape(2));
    table.replaceSortOrder().asc("customer_id").commit();
    Map<String, Long> before = LiveRows.multiset(table);
    JobSpec spec = job(options("rewrite-all", "true")).withJobIdIfAbsent();
    PlanSummary summary = new RewritePlanner(access).plan(spec);

    GroupRewriter tiny = sortingWithin(4000, NO_SPACE.resolve("spill"));
    for (int index : summary.groupIndexes()) {
      tiny.rewrite(GroupRequest.of(spec, summary, index, 1));
      assertThat(groupResult(summary, index).rewritePathReason())
          .isEqualTo(
              "the table's sort order customer_id ASC NULLS FIRST is not kept: the group holds more than"
                  + " the 100 bytes of Parquet a worker sorts in memory, and more than the 0 its sorted runs would"
                  + " fit in on local disk");
    }
    JobResult result = new JobCommitter(access).commit(CommitRequest.of(spec, summary));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  /**
   * The rows of each file follow the z-curve of the two columns, computed here with Iceberg's
   * bytes.
   */
  @Test
  void zOrderWritesRowsAlongTheCurveOfTheColumnsAsUnsorted() {
    Table table = create(shape(2));
    Map<String, Long> before = LiveRows.multiset(table);

    JobResult result = run(job(sortOptions("sort-order", "zorder(customer_id, order_id)")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    Comparator<byte[]> unsigned = Arrays::compareUnsigned;
    for (DataFile file : liveDataFiles(table)) {
      assertThat(file.sortOrderId()).isZero();
      List<byte[]> zValues =
          LiveRows.storedOrder(table, file).stream().map(EngineSortTest::zValue).toList();
      assertThat(zValues).isSortedAccordingTo(unsigned);
    }
  }

  @Test
  void badOrdersAreRefusedBeforeAnythingIsWritten() {
    Table table = create(shape(2));
    int snapshots = snapshots(table).size();

    assertThatThrownBy(() -> run(job(sortOptions("sort-order", "order_id, shipped_at DESC"))))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'sort-order' names column 'shipped_at', which the table does not have; its columns:"
                + " order_id, customer_id, region, amount, ordered_at, note");
    assertThatThrownBy(() -> run(job(sortOptions("sort-order", "order_id DESCENDING"))))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining("expected ',' or the end but found 'DESCENDING'");
    assertThatThrownBy(() -> run(job(sortOptions("strategy", "sort"))))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "'strategy' is sort but the table has no sort order and 'sort-order' is not set");

    assertThat(snapshots(table)).hasSize(snapshots);
    assertThat(Path.of(table.location().replaceFirst("^file:", ""), "_icecompact")).doesNotExist();
  }

  private EmbeddedJobRunner runner() {
    return new EmbeddedJobRunner(2, ProgressListener.NONE, EmbeddedJobRunner.GroupInterceptor.NONE);
  }

  /** The live files with their column bounds (a scan leaves them out unless asked). */
  private static Map<String, List<DataFile>> outputsByPartition(Table table) {
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files.stream()
        .collect(Collectors.groupingBy(file -> table.spec().partitionToPath(file.partition())));
  }

  /** Sorted by their ranges, each file's smallest order id is above the previous file's largest. */
  private static void assertDisjointOrderIdRanges(List<DataFile> files) {
    int orderId = FragmentedTable.SCHEMA.findField("order_id").fieldId();
    List<long[]> ranges = new ArrayList<>();
    for (DataFile file : files) {
      ranges.add(
          new long[] {
            Conversions.<Long>fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(orderId)),
            Conversions.<Long>fromByteBuffer(Types.LongType.get(), file.upperBounds().get(orderId))
          });
    }
    ranges.sort(Comparator.comparingLong(range -> range[0]));
    for (int i = 1; i < ranges.size(); i++) {
      assertThat(ranges.get(i)[0])
          .as("file ranges %s", ranges.stream().map(Arrays::toString).toList())
          .isGreaterThan(ranges.get(i - 1)[1]);
    }
  }

  /** The rows of a group's output files in the order they were written (files by their counter). */
  private static List<Record> rowsInWriteOrder(Table table, List<String> locations) {
    Pattern counter = Pattern.compile("-(\\d+)\\.parquet$");
    List<Record> rows = new ArrayList<>();
    locations.stream()
        .sorted(
            Comparator.comparingInt(
                (String location) -> {
                  Matcher matcher = counter.matcher(location);
                  assertThat(matcher.find()).as(location).isTrue();
                  return Integer.parseInt(matcher.group(1));
                }))
        .forEach(location -> rows.addAll(LiveRows.storedOrder(table, location)));
    return rows;
  }

  private static byte[] zValue(Record row) {
    int size = ZOrderByteUtils.PRIMITIVE_BUFFER_SIZE;
    byte[][] columns = {
      ZOrderByteUtils.longToOrderedBytes(
              (Long) row.getField("customer_id"), ByteBuffer.allocate(size))
          .array(),
      ZOrderByteUtils.longToOrderedBytes((Long) row.getField("order_id"), ByteBuffer.allocate(size))
          .array()
    };
    return ZOrderByteUtils.interleaveBits(columns, 2 * size, ByteBuffer.allocate(2 * size));
  }

  /**
   * A worker whose in-memory sort counts on {@code heapBytes}, spilling its sorted runs under
   * {@code spill}.
   */
  private GroupRewriter sortingWithin(long heapBytes, Path spill) {
    return new GroupRewriter(
        access, WorkerSettings.defaults().withSortHeapBytes(heapBytes).withSpillDirectory(spill));
  }
}
