package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.RewritePathChoice;
import io.icecompact.worker.WorkerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;

/**
 * The columnar path against the generic one on the same groups of the same snapshot: the same live
 * rows (lineage included), the same counts and the same DataFile metrics; and the groups it must
 * leave to the generic path, with the reason recorded.
 */
class ColumnarPathTest extends ColumnarComparisonBase {
  @Test
  void v2PositionAndEqualityDeletesGiveTheGenericPathsRowsAndMetrics() {
    Table table = create(SMALL);
    assertSameAsGeneric(table, Map.of());
  }

  @Test
  void partialGroupsKeepTheRowsOfFilesOutsideTheGroup() {
    Table table = create(SMALL);
    Map<String, Long> before = LiveRows.multiset(table);
    Map<String, String> twoFilesPerGroup =
        options(RewriteOptions.MAX_FILE_GROUP_INPUT_FILES, "2", RewriteOptions.REWRITE_ALL, "true");
    assertSameAsGeneric(table, twoFilesPerGroup);

    JobResult result = run(job(twoFilesPerGroup));
    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .allSatisfy(g -> assertThat(g.rewritePath()).isEqualTo(RewritePath.COLUMNAR));
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  @Test
  void everyFlatTypeWithNullsNanDictionaryAndPlainPagesMatchesTheGenericPath() {
    Table table = typed(2);
    assertSameAsGeneric(table, Map.of());
  }

  /**
   * Files written with v2 data pages (another engine's writer settings): dictionary columns are
   * copied by id from v2 pages, whose levels are stored apart from the values; the other columns
   * (delta encodings) value by value.
   */
  @Test
  void filesWithV2DataPagesMatchTheGenericPath() throws IOException {
    Table table = TypedTable.create(access.catalog(), TableIdentifier.parse(TABLE), 2, 0, 0);
    java.util.Random random = new java.util.Random(11);
    for (int f = 0; f < 4; f++) {
      List<org.apache.iceberg.data.Record> rows = new ArrayList<>();
      for (int r = 0; r < 700; r++) {
        rows.add(TypedTable.row(f * 700L + r, random));
      }
      table.newAppend().appendFile(v2PagesFile(table, rows)).commit();
    }
    List<DataFile> files = liveDataFiles(table);
    TypedTable.deleteEvery(table, files.get(1), 5);
    TypedTable.deleteWhere(table, "category", "c5");
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new LocalInputFile(java.nio.file.Path.of(files.get(0).location())))) {
      var category =
          reader.getFooter().getBlocks().get(0).getColumns().stream()
              .filter(c -> c.getPath().toDotString().equals("category"))
              .findFirst()
              .orElseThrow();
      assertThat(category.getEncodings())
          .contains(org.apache.parquet.column.Encoding.RLE_DICTIONARY); // v2 pages
    }
    assertSameAsGeneric(load(), options(RewriteOptions.REWRITE_ALL, "true"));
  }

  private static DataFile v2PagesFile(Table table, List<org.apache.iceberg.data.Record> rows)
      throws IOException {
    org.apache.iceberg.io.OutputFile out =
        table
            .io()
            .newOutputFile(
                table
                    .locationProvider()
                    .newDataLocation("v2-pages-" + System.nanoTime() + ".parquet"));
    org.apache.iceberg.io.FileAppender<org.apache.iceberg.data.Record> appender =
        org.apache.iceberg.parquet.Parquet.write(out)
            .forTable(table)
            .createWriterFunc(org.apache.iceberg.data.parquet.GenericParquetWriter::create)
            .writerVersion(org.apache.parquet.column.ParquetProperties.WriterVersion.PARQUET_2_0)
            .build();
    try (appender) {
      appender.addAll(rows);
    }
    return org.apache.iceberg.DataFiles.builder(table.spec())
        .withInputFile(out.toInputFile())
        .withFormat(org.apache.iceberg.FileFormat.PARQUET)
        .withMetrics(appender.metrics())
        .withSplitOffsets(appender.splitOffsets())
        .build();
  }

  /** Pitfall: a deleted non-null value must be skipped before consume(); a null must never be. */
  @Test
  void deletedValuesAndNullsInterleavedAreCopiedWithoutShifting() {
    Table table = typed(2);
    Map<String, Long> before = LiveRows.multiset(table);

    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .allSatisfy(g -> assertThat(g.rewritePath()).isEqualTo(RewritePath.COLUMNAR));
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  /** Pitfall: Iceberg ignores the footer of a column it got field metrics for. */
  @Test
  void floatAndDoubleMetricsAreComplete() {
    Table table = typed(2);
    Map<Set<String>, GroupResult> columnar = runGroups(table, RewritePathChoice.AUTO, Map.of());
    for (GroupResult result : columnar.values()) {
      for (DataFile file : outputs(table, result)) {
        for (int fieldId : List.of(3, 4)) {
          assertThat(file.valueCounts()).containsEntry(fieldId, file.recordCount());
          assertThat(file.nullValueCounts()).containsKey(fieldId);
          assertThat(file.nanValueCounts().get(fieldId)).isPositive();
          assertThat(file.lowerBounds()).containsKey(fieldId);
          assertThat(file.upperBounds()).containsKey(fieldId);
        }
      }
    }
  }

  @Test
  void v3DeletionVectorsAndLineageAcrossTwoCompactions() {
    Table table = typed(3);
    Schema withLineage = MetadataColumns.schemaWithRowLineage(table.schema());
    Map<String, Long> before = LiveRows.multiset(table, withLineage);
    assertSameAsGeneric(table, Map.of());

    assertStatus(run(job()), JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(load(), withLineage)).isEqualTo(before);

    // the compacted file stores its lineage; delete a few of its rows with a deletion vector
    table = load();
    DataFile compacted = liveDataFiles(table).get(0);
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.positionDelete(table, compacted, 0, 5, 6, 7, 100))
        .commit();
    appendTyped(table, 5000, 800);
    table = load();
    Map<String, Long> beforeSecond = LiveRows.multiset(table, withLineage);
    assertSameAsGeneric(table, options(RewriteOptions.REWRITE_ALL, "true"));

    JobResult second = run(job(options(RewriteOptions.REWRITE_ALL, "true")));
    assertStatus(second, JobStatus.COMMITTED);
    assertThat(second.groups())
        .allSatisfy(g -> assertThat(g.rewritePath()).isEqualTo(RewritePath.COLUMNAR));
    assertThat(LiveRows.multiset(load(), withLineage)).isEqualTo(beforeSecond);
  }

  /**
   * Equality deletes whose ids fall outside most files' order_id bounds: those files' key columns
   * are not read. An id on a file's upper bound (the only one within its bounds) must still be
   * deleted.
   */
  @Test
  void equalityDeletesSkippedByKeyBoundsGiveTheGenericPathsRows() {
    // 4 days x 5 files x 200 rows, ids in write order; no other deletes
    Table table = create(new FragmentedTable.Shape(4, 5, 200, 2, 0, 0, true));
    long low = 4L * 5 * 200 - 400;
    long high = low + 199;
    DataFile bounded = null;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        if (low
            == (Long)
                Conversions.fromByteBuffer(
                    Types.LongType.get(), task.file().lowerBounds().get(1))) {
          bounded = task.file();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(bounded).isNotNull();
    assertThat(
            (Long) Conversions.fromByteBuffer(Types.LongType.get(), bounded.upperBounds().get(1)))
        .isEqualTo(high);
    // low - 1 lives in another partition: within its partition the delete file matches only `high`
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.equalityDelete(table, bounded, low - 1, high))
        .commit();
    table = load();
    Map<String, Long> before = LiveRows.multiset(table);
    assertThat(before.keySet()).noneMatch(row -> row.startsWith("(" + high + ", "));
    assertSameAsGeneric(table, Map.of());

    JobResult result = run(job());
    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .allSatisfy(g -> assertThat(g.rewritePath()).isEqualTo(RewritePath.COLUMNAR));
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  /**
   * Columns copied on several threads at once write the very files one thread writes: each column
   * has its own reader, sink and codec state, and row groups close between slices, on the caller's
   * thread.
   */
  @Test
  void columnsCopiedOnSeveralThreadsWriteTheSameBytesAsOneThread() throws IOException {
    Table table = typed(3);
    JobSpec spec = job(Map.of()).withJobIdIfAbsent();
    PlanSummary summary = new RewritePlanner(access).plan(spec);
    List<List<byte[]>> outputsByThreads = new ArrayList<>();
    int attempt = 1;
    for (int threads : List.of(1, 4)) {
      GroupRewriter rewriter =
          new GroupRewriter(
              access,
              WorkerSettings.defaults()
                  .withPrefetch(PrefetchLimits.DEFAULT)
                  .withColumnThreads(threads));
      List<byte[]> bytes = new ArrayList<>();
      for (int index : summary.groupIndexes()) {
        rewriter.rewrite(GroupRequest.of(spec, summary, index, attempt));
        GroupResult result = groupResult(summary, index);
        assertThat(result.rewritePath()).isEqualTo(RewritePath.COLUMNAR);
        for (DataFile file : outputs(table, result)) {
          bytes.add(java.nio.file.Files.readAllBytes(java.nio.file.Path.of(file.location())));
        }
        access.fileIO().deleteFile(new WorkLocation(summary.workLocation()).groupResult(index));
      }
      outputsByThreads.add(bytes);
      attempt++;
    }
    assertThat(outputsByThreads.get(0)).isNotEmpty().hasSameSizeAs(outputsByThreads.get(1));
    for (int i = 0; i < outputsByThreads.get(0).size(); i++) {
      assertThat(outputsByThreads.get(1).get(i))
          .as("output file %d", i)
          .isEqualTo(outputsByThreads.get(0).get(i));
    }
  }

  @Test
  void v3FragmentedTableMatchesTheGenericPath() {
    Table table = create(new FragmentedTable.Shape(2, 5, 300, 3, 3, 10, true));
    assertSameAsGeneric(table, Map.of());
  }

  /**
   * Plain chunks of delete-free row groups are copied page by page: copied chunks carry no column
   * index (the file writer's page API without row counts leaves it out), re-encoded ones do.
   */
  @Test
  void plainChunksWithoutDeletedRowsAreCopiedAsPages() throws IOException {
    Table table = create(new FragmentedTable.Shape(1, 5, 400, 2, 1, 0, true));
    assertSameAsGeneric(table, options(RewriteOptions.REWRITE_ALL, "true"));

    GroupResult result =
        runGroups(table, RewritePathChoice.AUTO, options(RewriteOptions.REWRITE_ALL, "true"))
            .values()
            .iterator()
            .next();
    DataFile output = outputs(table, result).get(0);
    try (ParquetFileReader reader =
        ParquetFileReader.open(new LocalInputFile(java.nio.file.Path.of(output.location())))) {
      var block = reader.getFooter().getBlocks().get(0);
      Map<String, Boolean> indexed = new TreeMap<>();
      block
          .getColumns()
          .forEach(
              c -> indexed.put(c.getPath().toDotString(), c.getColumnIndexReference() != null));
      // order_id is unique: plain pages, copied from the 4 files without deletes; region is
      // dictionary-encoded
      assertThat(indexed).containsEntry("order_id", false).containsEntry("region", true);
    }
  }

  // ---- routing ----

  @Test
  void nestedColumnsGoGeneric() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                2,
                "address",
                Types.StructType.of(
                    Types.NestedField.optional(3, "city", Types.StringType.get()))));
    Table table =
        access
            .catalog()
            .createTable(TableIdentifier.parse(TABLE), schema, PartitionSpec.unpartitioned());
    for (int f = 0; f < 3; f++) {
      GenericRecord row = GenericRecord.create(schema);
      row.setField("id", (long) f);
      GenericRecord address = GenericRecord.create(schema.findType("address").asStructType());
      address.setField("city", "c" + f);
      row.setField("address", address);
      table.newAppend().appendFile(FragmentedTable.dataFile(table, List.of(row))).commit();
    }
    Map<String, Long> before = LiveRows.multiset(table);

    JobResult result = run(job(options(RewriteOptions.REWRITE_ALL, "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.rewritePath()).isEqualTo(RewritePath.GENERIC);
              assertThat(g.rewritePathReason()).contains("nested").contains("address");
            });
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  /** Columns added after the files were written read as nulls: the columnar path writes them so. */
  @Test
  void aColumnAddedAfterTheFilesWereWrittenIsWrittenAsNulls() {
    Table table = create(new FragmentedTable.Shape(0, 4, 100, 2, 1, 0, false));
    table
        .updateSchema()
        .addColumn("channel", Types.StringType.get())
        .addColumn("score", Types.DoubleType.get())
        .commit();
    table = load();
    Map<String, Long> before = LiveRows.multiset(table);
    assertSameAsGeneric(table, options(RewriteOptions.REWRITE_ALL, "true"));

    JobResult result = run(job(options(RewriteOptions.REWRITE_ALL, "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.rewritePath()).isEqualTo(RewritePath.COLUMNAR));
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  /**
   * An equality delete on a column added after some data files were written: their rows read it as
   * null, so a delete of "web" keeps them all and a delete of null removes them all. The columnar
   * path reads delete keys from each file's own columns, so such a group goes generic, and the
   * reason names the column and the file without it.
   */
  @Test
  void anEqualityDeleteOnAColumnAnOlderFileLacksGoesGeneric() {
    Map<String, Long> before = equalityDeleteOnAddedColumn("web");
    assertThat(LiveRows.count(before))
        .isEqualTo(2 * 100 + 100 - 33); // 33 rows of the new file are "web"
    assertAddedColumnDeleteGoesGeneric(before);
  }

  @Test
  void anEqualityDeleteOfNullOnAColumnAnOlderFileLacksGoesGeneric() {
    Map<String, Long> before = equalityDeleteOnAddedColumn((Object) null);
    assertThat(LiveRows.count(before))
        .isEqualTo(100 - 34); // all of the older files, 34 nulls of the new one
    assertAddedColumnDeleteGoesGeneric(before);
  }

  /**
   * Two files of 100 rows written before {@code channel} was added, one of 100 after (channel
   * cycling null, "web", "app"), then an equality delete on {@code channel}; returns the live rows
   * as Iceberg's generic reader sees them.
   */
  private Map<String, Long> equalityDeleteOnAddedColumn(Object... deletedChannels) {
    Table table = create(new FragmentedTable.Shape(0, 2, 100, 2, 0, 0, false));
    filesWithoutChannel = liveDataPaths(table);
    table.updateSchema().addColumn("channel", Types.StringType.get()).commit();
    table = load();
    List<Record> rows = new ArrayList<>();
    String[] channels = {null, "web", "app"};
    for (int i = 0; i < 100; i++) {
      Record order = FragmentedTable.newOrder(1000 + i, 0);
      GenericRecord row = GenericRecord.create(table.schema());
      for (Types.NestedField field : FragmentedTable.SCHEMA.columns()) {
        row.setField(field.name(), order.getField(field.name()));
      }
      row.setField("channel", channels[i % channels.length]);
      rows.add(row);
    }
    table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
    TypedTable.deleteWhere(load(), "channel", deletedChannels);
    return LiveRows.multiset(load());
  }

  private List<String> filesWithoutChannel;

  private void assertAddedColumnDeleteGoesGeneric(Map<String, Long> before) {
    JobResult result = run(job(options(RewriteOptions.REWRITE_ALL, "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.rewritePath()).isEqualTo(RewritePath.GENERIC);
              assertThat(g.rewritePathReason())
                  .contains("equality delete on column channel")
                  .contains("does not contain");
              assertThat(filesWithoutChannel).anyMatch(g.rewritePathReason()::contains);
            });
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  /**
   * A promoted type (int to long) needs Iceberg's projection: generic, and the reason says which
   * column.
   */
  @Test
  void aColumnPromotedAfterTheFilesWereWrittenGoesGeneric() {
    Table table = TypedTable.create(access.catalog(), TableIdentifier.parse(TABLE), 2, 3, 200);
    table.updateSchema().updateColumn("i", Types.LongType.get()).commit();
    Map<String, Long> before = LiveRows.multiset(load());

    JobResult result = run(job(options(RewriteOptions.REWRITE_ALL, "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.rewritePath()).isEqualTo(RewritePath.GENERIC);
              assertThat(g.rewritePathReason())
                  .contains("column i is written as")
                  .contains("another physical type");
            });
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
  }

  @Test
  void aSortOrderGoesGenericAndThePlanSaysSo() {
    Table table = create(SMALL);
    table.replaceSortOrder().asc("order_id").commit();

    RewritePlanner.PlannedJob planned = new RewritePlanner(access).dryRun(job());
    assertThat(planned.plan().groups())
        .allSatisfy(
            g -> {
              assertThat(g.expectedRewritePath()).isEqualTo(RewritePath.GENERIC);
              assertThat(g.expectedRewritePathReason()).contains("sort order");
            });
    JobResult result = run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .allSatisfy(
            g -> {
              assertThat(g.rewritePath()).isEqualTo(RewritePath.GENERIC);
              assertThat(g.rewritePathReason()).contains("sort order");
            });
  }

  @Test
  void eligibleGroupsArePlannedColumnarAndTheWorkerSaysWhy() {
    create(SMALL);
    RewritePlanner.PlannedJob planned = new RewritePlanner(access).dryRun(job());
    assertThat(planned.plan().groups())
        .allSatisfy(g -> assertThat(g.expectedRewritePath()).isEqualTo(RewritePath.COLUMNAR));

    JobResult result = run(job());

    assertThat(result.groups())
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN);
              assertThat(g.rewritePath()).isEqualTo(RewritePath.COLUMNAR);
              assertThat(g.rewritePathReason()).isNotBlank();
            });
  }

  // ---- helpers ----

  private Table typed(int formatVersion) {
    Table table =
        TypedTable.create(access.catalog(), TableIdentifier.parse(TABLE), formatVersion, 6, 1000);
    List<DataFile> files = liveDataFiles(table);
    TypedTable.deleteEvery(table, files.get(0), 3);
    TypedTable.deleteEvery(table, files.get(3), 4);
    TypedTable.deleteWhere(table, "id", 10L, 2500L, 4001L);
    TypedTable.deleteWhere(table, "category", "c3");
    TypedTable.deleteWhere(table, "i", (Object) null);
    return load();
  }

  private static void appendTyped(Table table, long firstId, int rows) {
    java.util.Random random = new java.util.Random(firstId);
    List<Record> records = new ArrayList<>();
    for (long n = firstId; n < firstId + rows; n++) {
      records.add(TypedTable.row(n, random));
    }
    table.newAppend().appendFile(FragmentedTable.dataFile(table, records)).commit();
  }
}
