package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.EqualityDeletesTooLargeException;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.worker.RewritePathChoice;
import io.icecompact.worker.deletes.EqualityDeleteIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tables laid out as Flink's upsert and changelog sinks write them ({@link FlinkUpsertTable}: per
 * checkpoint and writer, a data file, an equality delete on the key and a position delete for keys
 * changed twice), compacted on both rewrite paths: the live rows are exactly the model's, and the
 * delete files the rewrite made useless are gone.
 */
class EngineFlinkCdcTest extends EngineTestBase {
  static Stream<Arguments> shapes() {
    List<Arguments> all = new ArrayList<>();
    for (RewritePathChoice path : List.of(RewritePathChoice.GENERIC, RewritePathChoice.AUTO)) {
      all.add(
          Arguments.of(
              "upsert v2",
              FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false),
              path));
      all.add(
          Arguments.of(
              "changelog v2",
              FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.CHANGELOG, 2, false),
              path));
      all.add(
          Arguments.of(
              "upsert v2, key (tenant, id, event_ts)",
              FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, true),
              path));
      all.add(
          Arguments.of(
              "upsert v3, deletion vectors",
              FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 3, false),
              path));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0}, {2}")
  @MethodSource("shapes")
  void compactsKeepingExactlyTheModelsRows(
      String name, FlinkUpsertTable.Shape shape, RewritePathChoice path) {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape);
    Table table = cdc.table();
    Map<String, Long> model = LiveRows.multiset(cdc.expectedLiveRows(), table);
    assertThat(LiveRows.multiset(table)).isEqualTo(model);
    int deletesBefore = deleteFiles(table).size();
    assertThat(deleteFiles(table)).anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES);

    JobResult result =
        new EmbeddedJobRunner(2, ProgressListener.NONE, GroupInterceptor.NONE, path).run(job());

    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    assertThat(LiveRows.multiset(table)).isEqualTo(model);
    // one file per bucket holding live rows
    assertThat(liveDataFiles(table)).hasSizeLessThanOrEqualTo(shape.buckets());
    // every position delete and deletion vector went with its data file; the equality deletes left
    // are
    // only those Iceberg does not age off, as new as the oldest live data file (the newest
    // checkpoint's)
    List<DeleteFile> left = deleteFiles(table);
    assertThat(result.removedDeleteFilesCount()).isEqualTo(deletesBefore - left.size());
    long lowestLive =
        liveDataFiles(table).stream().mapToLong(DataFile::dataSequenceNumber).min().orElseThrow();
    assertThat(left)
        .allSatisfy(
            delete -> {
              assertThat(delete.content()).isEqualTo(FileContent.EQUALITY_DELETES);
              assertThat(delete.dataSequenceNumber()).isGreaterThanOrEqualTo(lowestLive);
            });
    assertThat(left).hasSizeLessThanOrEqualTo(shape.writers() * shape.buckets());
  }

  /**
   * Upserts committed while the job runs (after its plan, before its commit) add equality deletes
   * of keys in the files being rewritten: the compaction commits, and those deletes still apply to
   * its output, so the rows they replaced stay deleted.
   */
  @Test
  void upsertsCommittedDuringTheJobStayApplied() {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false));
    Table table = cdc.table();
    Set<String> deletesBefore = locations(deleteFiles(table));

    JobResult result =
        run(
            job(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                cdc.checkpoint();
              }
            });

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(LiveRows.multiset(table))
        .isEqualTo(LiveRows.multiset(cdc.expectedLiveRows(), table));
    Set<String> concurrent = new HashSet<>(locations(deleteFiles(table)));
    concurrent.removeAll(deletesBefore);
    List<DeleteFile> addedEqualityDeletes =
        deleteFiles(table).stream()
            .filter(
                d ->
                    d.content() == FileContent.EQUALITY_DELETES
                        && concurrent.contains(d.location()))
            .toList();
    assertThat(addedEqualityDeletes)
        .as("the concurrent checkpoint's equality deletes are kept")
        .isNotEmpty();
  }

  /**
   * The index holds each deleted key once; a group whose deletes would not fit is refused before
   * reading.
   */
  @Test
  void indexHoldsEachDeletedKeyOnceAndRefusesWhatWouldNotFit() throws IOException {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false));
    Table table = cdc.table();
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    }
    BaseDeleteLoader loader =
        new BaseDeleteLoader(d -> table.io().newInputFile(d.location()), null);
    // the deletes Iceberg's planning attached to a file (not those newer than every data file)
    long records =
        liveDeletes(table).values().stream()
            .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
            .mapToLong(ContentFile::recordCount)
            .sum();

    EqualityDeleteIndex index =
        EqualityDeleteIndex.of(
            tasks, table.specs(), table.schema(), table.io(), loader, Long.MAX_VALUE, 0);
    assertThat(index.keys()).isPositive().isLessThanOrEqualTo(records);

    assertThatThrownBy(
            () ->
                EqualityDeleteIndex.of(
                    tasks, table.specs(), table.schema(), table.io(), loader, 1024, 7))
        .isInstanceOf(EqualityDeletesTooLargeException.class)
        .hasMessageContaining(
            "Group 7's equality deletes hold "
                + String.format("%,d", records)
                + " keys, an index of ~")
        .hasMessageContaining("more than the 1 KB a worker gives them")
        .hasMessageContaining("ICECOMPACT_JAVA_OPTS=-Xmx")
        .hasMessageContaining("WorkerMemorySize");
  }

  private static Set<String> locations(List<DeleteFile> files) {
    Set<String> locations = new HashSet<>();
    files.forEach(f -> locations.add(f.location()));
    return locations;
  }

  /**
   * Every delete file of the current snapshot (from its delete manifests: also those no task
   * carries).
   */
  private static List<DeleteFile> deleteFiles(Table table) {
    table.refresh();
    List<DeleteFile> files = new ArrayList<>();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        reader.forEach(file -> files.add(file.copy()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }
}
