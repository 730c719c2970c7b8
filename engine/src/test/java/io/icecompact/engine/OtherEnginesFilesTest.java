package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Tables whose data files other engines wrote (see {@link ForeignParquetFiles} for each layout and
 * where it comes from), with position deletes: every group takes the columnar path and writes the
 * generic path's live rows, counts and metrics, on the table's schema.
 *
 * <p>Isolated: parquet-java's default values-writer factory is shared and re-initialized by every
 * writer built (Iceberg's included), so a concurrent test could change a fixture's dictionary size
 * between its writer's configuration and its columns' creation. Its own tests run one at a time
 * too.
 */
@Isolated
@Execution(ExecutionMode.SAME_THREAD)
class OtherEnginesFilesTest extends ColumnarComparisonBase {
  private static final Map<String, String> ALL = options(RewriteOptions.REWRITE_ALL, "true");

  @Test
  void spark35FilesWithARequiredColumnTakeTheColumnarPath() {
    Table table = tableOf(ForeignParquetFiles.SPARK_3_5);
    ParquetMetadata footer = footer(liveDataFiles(table).get(0));
    assertThat(footer.getFileMetaData().getCreatedBy()).isEqualTo("parquet-mr version 1.16.0");
    assertThat(footer.getFileMetaData().getSchema().getType("order_id").getRepetition())
        .isEqualTo(Type.Repetition.REQUIRED);
    assertThat(chunk(footer, "order_id").getColumnIndexReference()).isNotNull();
    assertThat(chunk(footer, "order_id").hasDictionaryPage()).isFalse(); // PLAIN numbers
    assertThat(chunk(footer, "region").hasDictionaryPage()).isTrue();

    assertSameAsGeneric(table, ALL);
    assertCompactsColumnar(table);
  }

  @Test
  void renamedColumnsAreMatchedByFieldId() {
    Table table = tableOf(ForeignParquetFiles.SPARK_3_5);
    table
        .updateSchema()
        .renameColumn("customer_name", "customer")
        .renameColumn("qty", "quantity")
        .commit();
    table = load();
    assertThat(
            footer(liveDataFiles(table).get(0))
                .getFileMetaData()
                .getSchema()
                .containsField("customer_name"))
        .isTrue();

    assertSameAsGeneric(table, ALL);
    assertCompactsColumnar(table);
    DataFile output = liveDataFiles(load()).get(0);
    Set<String> written = new TreeSet<>();
    footer(output).getFileMetaData().getSchema().getFields().forEach(f -> written.add(f.getName()));
    assertThat(written).contains("customer", "quantity").doesNotContain("customer_name", "qty");
    assertThat(footer(output).getFileMetaData().getSchema().getType("order_id").getRepetition())
        .isEqualTo(Type.Repetition.OPTIONAL);
  }

  @Test
  void sparkFilesWithBloomFiltersAndDictionaryFallbackMidChunk() {
    Table table = tableOf(ForeignParquetFiles.SPARK_BLOOM_AND_FALLBACK);
    ParquetMetadata footer = footer(liveDataFiles(table).get(0));
    assertThat(chunk(footer, "order_id").getBloomFilterOffset()).isPositive();
    // dictionary pages, then PLAIN ones once the dictionary outgrew its page
    assertThat(chunk(footer, "note").getEncodingStats().hasDictionaryEncodedPages()).isTrue();
    assertThat(chunk(footer, "note").getEncodingStats().hasNonDictionaryEncodedPages()).isTrue();

    assertSameAsGeneric(table, ALL);
  }

  @Test
  void trinoFilesInAnotherCodecWithoutPageIndexesTakeTheColumnarPath() {
    Table table = tableOf(ForeignParquetFiles.TRINO);
    ParquetMetadata footer = footer(liveDataFiles(table).get(0));
    assertThat(footer.getFileMetaData().getCreatedBy()).startsWith("parquet-mr-trino version");
    assertThat(chunk(footer, "order_id").getColumnIndexReference()).isNull();
    assertThat(chunk(footer, "order_id").getCodec().name()).isEqualTo("SNAPPY");
    assertThat(chunk(footer, "region").getEncodingStats()).isNull();

    assertSameAsGeneric(table, ALL);
    assertCompactsColumnar(table);
  }

  @Test
  void pyicebergFilesTakeTheColumnarPath() {
    Table table = tableOf(ForeignParquetFiles.PYICEBERG);
    ParquetMetadata footer = footer(liveDataFiles(table).get(0));
    assertThat(footer.getFileMetaData().getCreatedBy()).startsWith("parquet-cpp-arrow");
    assertThat(chunk(footer, "region").getOffsetIndexReference()).isNull();
    // decimal(10,2) in 5 fixed bytes, where Iceberg's writer (and the output) uses INT64
    assertThat(chunk(footer, "amount").getPrimitiveType().getPrimitiveTypeName().name())
        .isEqualTo("FIXED_LEN_BYTE_ARRAY");

    assertSameAsGeneric(table, ALL);
    assertCompactsColumnar(table);
  }

  @Test
  void pyarrowV2DataPagesInGzipTakeTheColumnarPath() {
    Table table = tableOf(ForeignParquetFiles.PYARROW_V2_PAGES_GZIP);
    ParquetMetadata footer = footer(liveDataFiles(table).get(0));
    assertThat(chunk(footer, "region").getEncodings()).contains(Encoding.RLE_DICTIONARY);
    assertThat(chunk(footer, "order_id").getCodec().name()).isEqualTo("GZIP");

    assertSameAsGeneric(table, ALL);
  }

  /**
   * Flink writes through Iceberg's own Parquet writer (FlinkParquetWriters under Iceberg's {@code
   * Parquet.write}, the table's settings and schema): upserts leave equality deletes besides
   * position deletes. Mixed here with Spark files of the same table.
   */
  @Test
  void flinkFilesWithEqualityDeletesBesideSparkFiles() {
    Table table = tableOf(ForeignParquetFiles.SPARK_3_5);
    List<Record> flinkRows = ForeignParquetFiles.rows(table.schema(), 100_000, 1500);
    DataFile flink = FragmentedTable.dataFile(table, flinkRows);
    table.newAppend().appendFile(flink).commit();
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.equalityDelete(table, flink, 100_010L, 100_011L, 5L))
        .commit();
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.positionDelete(table, flink, 0, 7, 1499))
        .commit();
    table = load();

    assertSameAsGeneric(table, ALL);
    assertCompactsColumnar(table);
  }

  // ---- helpers ----

  /**
   * An unpartitioned v2 table of 4 files laid out as {@code layout}, position deletes on two of
   * them.
   */
  private Table tableOf(ForeignParquetFiles.Layout layout) {
    Table table =
        access
            .catalog()
            .createTable(
                TableIdentifier.parse(TABLE),
                ForeignParquetFiles.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("format-version", "2"));
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 4; f++) {
      DataFile file =
          ForeignParquetFiles.write(
              table, layout, ForeignParquetFiles.rows(table.schema(), f * 2000L, 2000));
      table.newAppend().appendFile(file).commit();
      files.add(file);
    }
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.positionDelete(table, files.get(0), 0, 1, 2, 999, 1999))
        .commit();
    long[] every7 = java.util.stream.LongStream.range(0, 2000).filter(p -> p % 7 == 3).toArray();
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.positionDelete(table, files.get(2), every7))
        .commit();
    return load();
  }

  /** The whole job (plan, rewrite, commit): planned and run columnar, the live rows kept. */
  private void assertCompactsColumnar(Table table) {
    Map<String, Long> before = LiveRows.multiset(table);
    RewritePlanner.PlannedJob planned = new RewritePlanner(access).dryRun(job(ALL));
    assertThat(planned.plan().groups())
        .isNotEmpty()
        .allSatisfy(g -> assertThat(g.expectedRewritePath()).isEqualTo(RewritePath.COLUMNAR));

    JobResult result = run(job(ALL));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.groups())
        .isNotEmpty()
        .allSatisfy(
            g -> {
              assertThat(g.rewritePath()).as(g.rewritePathReason()).isEqualTo(RewritePath.COLUMNAR);
              assertThat(g.rewritePathReason()).isNotBlank();
            });
    assertThat(LiveRows.multiset(load())).isEqualTo(before);
    assertThat(liveDeletes(load())).isEmpty();
  }

  private static ParquetMetadata footer(DataFile file) {
    String location = file.location();
    Path path =
        location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
      return reader.getFooter();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ColumnChunkMetaData chunk(ParquetMetadata footer, String column) {
    BlockMetaData block = footer.getBlocks().get(0);
    return block.getColumns().stream()
        .filter(c -> c.getPath().toDotString().equals(column))
        .findFirst()
        .orElseThrow();
  }
}
