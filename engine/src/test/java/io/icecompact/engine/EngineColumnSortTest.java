package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupResult;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.fixtures.FragmentedTable.Shape;
import io.icecompact.worker.GroupRoute;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The column sort (AUTO) writes what the record sort (GENERIC) writes: the same row sequence file
 * by file (ties in input order, nulls first or last, descending keys, transforms, z-order), v3 row
 * lineage as stored, the same files with the same sort order id and metrics, on tables with
 * position and equality deletes (v2) and deletion vectors (v3).
 */
class EngineColumnSortTest extends ColumnarComparisonBase {
  /** 2 day partitions of 5 files of 1,000 rows, position and equality deletes. */
  private static Shape shape(int formatVersion) {
    return new Shape(2, 5, 1000, formatVersion, 2, 30, true);
  }

  @ParameterizedTest(name = "v{0} {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "2|region",
        "3|region",
        "2|note DESC NULLS FIRST, customer_id",
        "3|note ASC NULLS LAST, ordered_at DESC",
        "2|days(ordered_at), amount DESC, region DESC NULLS FIRST",
        "3|bucket(4, customer_id) DESC, truncate(3, note) NULLS LAST",
        "2|zorder(customer_id, ordered_at)",
        "3|zorder(region, customer_id, order_id)",
        "3|table",
      })
  void columnSortWritesTheRecordSortsRowsAndFiles(int formatVersion, String sortOrder) {
    Table table = create(shape(formatVersion));
    boolean tableOrder = sortOrder.equals("table");
    if (tableOrder) {
      table.replaceSortOrder().desc("region").asc("note").commit();
      table.refresh();
    }
    Map<String, String> options = options("rewrite-all", "true", "target-file-size-bytes", "4096");
    options.putAll(tableOrder ? options("strategy", "sort") : options("sort-order", sortOrder));

    List<Map<Set<String>, GroupResult>> runs =
        runBoth(options, List.of(RewritePathChoice.GENERIC, RewritePathChoice.AUTO));

    Map<Set<String>, GroupResult> records = runs.get(0);
    Map<Set<String>, GroupResult> columns = runs.get(1);
    assertThat(columns.keySet()).isEqualTo(records.keySet()).hasSize(2);
    for (Set<String> inputs : records.keySet()) {
      GroupResult byRecords = records.get(inputs);
      GroupResult byColumns = columns.get(inputs);
      assertThat(byRecords.rewritePathReason()).doesNotContain(GroupRoute.SORTED_IN_COLUMNS);
      assertThat(byColumns.rewritePath()).isEqualTo(RewritePath.GENERIC);
      assertThat(byColumns.rewritePathReason()).endsWith("; " + GroupRoute.SORTED_IN_COLUMNS);
      assertThat(byRecords.deletedRows()).as("the group has deletes").isPositive();
      assertThat(List.of(byColumns.inputRows(), byColumns.deletedRows(), byColumns.outputRows()))
          .isEqualTo(
              List.of(byRecords.inputRows(), byRecords.deletedRows(), byRecords.outputRows()));

      List<DataFile> recordFiles = inWriteOrder(outputs(table, byRecords));
      List<DataFile> columnFiles = inWriteOrder(outputs(table, byColumns));
      assertThat(recordFiles)
          .as("several files a group, or file ranges prove nothing")
          .hasSizeGreaterThan(2);
      List<Record> expected = rowSequence(table, recordFiles);
      assertThat(rowSequence(table, columnFiles))
          .hasSize((int) byRecords.outputRows())
          .containsExactlyElementsOf(expected);
      assertThat(columnFiles).hasSameSizeAs(recordFiles);
      for (int i = 0; i < recordFiles.size(); i++) {
        DataFile byRecord = recordFiles.get(i);
        DataFile byColumn = columnFiles.get(i);
        assertThat(byColumn.sortOrderId())
            .isEqualTo(byRecord.sortOrderId())
            .isEqualTo(tableOrder ? table.sortOrder().orderId() : 0);
        assertThat(byColumn.recordCount()).isEqualTo(byRecord.recordCount());
        assertThat(byColumn.partition()).isEqualTo(byRecord.partition());
        assertThat(byColumn.nullValueCounts()).isEqualTo(byRecord.nullValueCounts());
        assertThat(byColumn.lowerBounds()).isEqualTo(byRecord.lowerBounds());
        assertThat(byColumn.upperBounds()).isEqualTo(byRecord.upperBounds());
      }
    }
  }

  /** A group's files in the order they were written: by the counter that ends their names. */
  private static List<DataFile> inWriteOrder(List<DataFile> files) {
    Pattern counter = Pattern.compile("-(\\d+)\\.parquet$");
    return files.stream()
        .sorted(
            Comparator.comparingInt(
                (DataFile file) -> {
                  Matcher matcher = counter.matcher(file.location());
                  assertThat(matcher.find()).as(file.location()).isTrue();
                  return Integer.parseInt(matcher.group(1));
                }))
        .toList();
  }

  /** The rows of {@code files} in stored order, v3 row lineage as stored. */
  private static List<Record> rowSequence(Table table, List<DataFile> files) {
    Schema projection =
        ((HasTableOperations) table).operations().current().formatVersion() >= 3
            ? MetadataColumns.schemaWithRowLineage(table.schema())
            : table.schema();
    List<Record> rows = new ArrayList<>();
    for (DataFile file : files) {
      try (CloseableIterable<Record> records =
          Parquet.read(table.io().newInputFile(file.location()))
              .project(projection)
              .createReaderFunc(
                  fileSchema ->
                      GenericParquetReaders.buildReader(projection, fileSchema, RAW_LINEAGE))
              .build()) {
        records.forEach(rows::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return rows;
  }
}
