package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.RewritePathChoice;
import io.icecompact.worker.WorkerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * Runs the same groups of one plan through the generic path and the columnar one (AUTO) and
 * compares what they wrote: the live rows (lineage included), the counts and the DataFile metrics.
 */
abstract class ColumnarComparisonBase extends EngineTestBase {
  static final Map<Integer, Object> RAW_LINEAGE =
      Map.of(
          // a stored null would read as this base plus its position: equal on both sides either way
          MetadataColumns.ROW_ID.fieldId(),
          Long.MIN_VALUE / 2,
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(),
          -1L);

  /**
   * Runs every group of a fresh plan through {@code choice}; results keyed by their input files.
   */
  Map<Set<String>, GroupResult> runGroups(
      Table table, RewritePathChoice choice, Map<String, String> options) {
    return runBoth(options, List.of(choice)).get(0);
  }

  /**
   * Runs every group of one plan through each choice in turn, as attempts 1, 2, ...; the stored
   * result of an attempt is removed before the next, which would otherwise return it.
   */
  List<Map<Set<String>, GroupResult>> runBoth(
      Map<String, String> options, List<RewritePathChoice> choices) {
    JobSpec spec = job(options).withJobIdIfAbsent();
    PlanSummary summary = new RewritePlanner(access).plan(spec);
    List<Map<Set<String>, GroupResult>> all = new ArrayList<>();
    int attempt = 1;
    for (RewritePathChoice choice : choices) {
      GroupRewriter rewriter =
          new GroupRewriter(access, WorkerSettings.defaults().withPathChoice(choice));
      Map<Set<String>, GroupResult> results = new HashMap<>();
      for (int index : summary.groupIndexes()) {
        rewriter.rewrite(GroupRequest.of(spec, summary, index, attempt));
        GroupResult result = groupResult(summary, index);
        results.put(Set.copyOf(result.inputFiles()), result);
        access.fileIO().deleteFile(new WorkLocation(summary.workLocation()).groupResult(index));
      }
      assertThat(results).isNotEmpty();
      all.add(results);
      attempt++;
    }
    return all;
  }

  void assertSameAsGeneric(Table table, Map<String, String> options) {
    List<Map<Set<String>, GroupResult>> runs =
        runBoth(options, List.of(RewritePathChoice.GENERIC, RewritePathChoice.AUTO));
    Map<Set<String>, GroupResult> generic = runs.get(0);
    Map<Set<String>, GroupResult> columnar = runs.get(1);
    assertThat(columnar.keySet()).isEqualTo(generic.keySet());
    for (Set<String> inputs : generic.keySet()) {
      GroupResult g = generic.get(inputs);
      GroupResult c = columnar.get(inputs);
      assertThat(g.rewritePath()).isEqualTo(RewritePath.GENERIC);
      assertThat(c.rewritePath()).as(c.rewritePathReason()).isEqualTo(RewritePath.COLUMNAR);
      assertThat(List.of(c.inputRows(), c.deletedRows(), c.outputRows()))
          .isEqualTo(List.of(g.inputRows(), g.deletedRows(), g.outputRows()));
      List<DataFile> gFiles = outputs(table, g);
      List<DataFile> cFiles = outputs(table, c);
      assertThat(rows(table, cFiles)).isEqualTo(rows(table, gFiles));
      assertThat(cFiles).hasSameSizeAs(gFiles);
      if (gFiles.size() == 1) {
        DataFile gf = gFiles.get(0);
        DataFile cf = cFiles.get(0);
        assertThat(cf.recordCount()).isEqualTo(gf.recordCount());
        assertThat(cf.valueCounts()).isEqualTo(gf.valueCounts());
        assertThat(cf.nullValueCounts()).isEqualTo(gf.nullValueCounts());
        assertThat(cf.nanValueCounts()).isEqualTo(gf.nanValueCounts());
        assertThat(cf.lowerBounds()).isEqualTo(gf.lowerBounds());
        assertThat(cf.upperBounds()).isEqualTo(gf.upperBounds());
        assertThat(cf.partition()).isEqualTo(gf.partition());
        assertThat(cf.sortOrderId()).isEqualTo(gf.sortOrderId());
        assertThat(cf.splitOffsets()).isNotEmpty();
      }
    }
  }

  static List<DataFile> outputs(Table table, GroupResult result) {
    return result.outputFiles().stream()
        .map(node -> (DataFile) ContentFileParser.fromJson(node, table.specs()))
        .toList();
  }

  /** Every row of the files, lineage as stored, read by Iceberg's own Parquet reader. */
  static Map<String, Long> rows(Table table, List<DataFile> files) {
    Schema projection =
        ((org.apache.iceberg.HasTableOperations) table).operations().current().formatVersion() >= 3
            ? MetadataColumns.schemaWithRowLineage(table.schema())
            : table.schema();
    Map<String, Long> rows = new TreeMap<>();
    for (DataFile file : files) {
      try (CloseableIterable<Record> records =
          Parquet.read(table.io().newInputFile(file.location()))
              .project(projection)
              .createReaderFunc(
                  type -> GenericParquetReaders.buildReader(projection, type, RAW_LINEAGE))
              .build()) {
        for (Record record : records) {
          rows.merge(text(record), 1L, Long::sum);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return rows;
  }

  static String text(Record record) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < record.size(); i++) {
      Object value = record.get(i);
      text.append(
              value instanceof ByteBuffer buffer
                  ? java.util.HexFormat.of().formatHex(buffer.array())
                  : value)
          .append('|');
    }
    return text.toString();
  }
}
