package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Flink upsert table (v2 and v3) compacted once into one big file per bucket, at its target size,
 * then given more checkpoints of upserts: small new files, and equality deletes applying to both.
 * The sweep never rewrites the big files to drop their deletes: it first compacts only the small
 * files (on v2 the default {@code delete-file-threshold=1} left out, since the files at target hold
 * most of the bytes it would rewrite), then converts the equality deletes left on the big files,
 * then finds nothing to do: the converted files' position deletes do not make them candidates
 * again. The live rows never change.
 */
class SweepCompactsSmallFilesThenConvertsTest {
  private static final String TABLE = "cdc.mixed";

  @TempDir Path warehouse;

  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void theSmallFilesAreCompactedThenTheBigFilesDeletesConvertedAndNothingUndoesIt(int version) {
    Map<String, Long> rows;
    Set<String> bigFiles;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      bigFiles = buildMixedTable(access, version);
      rows = LiveRows.multiset(access.loadTable(TABLE));
      assertThat(equalityDeletesApplying(access)).isPositive();

      // sweep 1: the small files only
      TableAssessment first = new FleetAssessor(access).assess(TABLE);
      assertThat(first.decision()).as(first.reason()).isEqualTo(Decision.COMPACT);
      assertThat(first.reason())
          .contains(
              "this compaction takes 40 of those 44 data files, the others keep their equality"
                  + " deletes until a later sweep converts them");
      // v2: the default that would have picked the big files for their equality deletes is left
      // out; v3 has no such default (Iceberg's planner picks them only a third deleted)
      if (version == 2) {
        assertThat(first.reason()).contains("delete-file-threshold=1 left out: 4 of the 52 ");
      } else {
        assertThat(first.reason()).doesNotContain("delete-file-threshold");
      }
      assertThat(first.policy().options()).doesNotContainKey("delete-file-threshold");
      assertThat(first.prediction().dataFilesRead()).isEqualTo(dataFiles(access).size() - 4);
    }
    sweep();
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table = access.loadTable(TABLE);
      assertThat(LiveRows.multiset(table)).isEqualTo(rows);
      assertThat(dataFiles(access)).containsAll(bigFiles).hasSizeLessThanOrEqualTo(4 + 4);
      assertThat(equalityDeletesApplying(access)).isPositive();

      // sweep 2: the equality deletes, now on the big files only, converted
      TableAssessment second = new FleetAssessor(access).assess(TABLE);
      assertThat(second.decision())
          .as(second.reason())
          .isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
    }
    sweep();
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table = access.loadTable(TABLE);
      assertThat(LiveRows.multiset(table)).isEqualTo(rows);
      assertThat(dataFiles(access)).containsAll(bigFiles);
      FlinkUpsertTable.Layout layout = FlinkUpsertTable.Layout.of(table);
      // (v3 keeps the load's equality deletes that apply to no file: no delete-cleanup step there)
      assertThat(equalityDeletesApplying(access)).isZero();
      assertThat(version == 2 ? layout.positionDeleteFiles() : layout.deletionVectors())
          .isEqualTo(4);

      // sweep 3: the big files keep their position deletes; nothing else to do
      TableAssessment third = new FleetAssessor(access).assess(TABLE);
      assertThat(third.decision()).as(third.reason()).isEqualTo(Decision.SKIP_NO_OP);
      if (version == 2) {
        assertThat(third.reason()).contains("delete-file-threshold=1 left out: 4 of the ");
      }
    }
  }

  /**
   * The table, with its target size set so that the first compaction's files are at 90% of it;
   * returns those files' locations.
   */
  private Set<String> buildMixedTable(TableAccess access, int version) {
    FlinkUpsertTable.Shape load =
        new FlinkUpsertTable.Shape(
            FlinkUpsertTable.Mode.UPSERT, version, 2, 2, 4, 20_000, 80_000, false, 0.0, 0.09, 27);
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(TABLE), load);
    new EmbeddedJobRunner(2, ProgressListener.NONE)
        .run(
            new JobSpec(
                null,
                TABLE,
                TestTables.catalog(warehouse),
                Map.of("target-file-size-bytes", Long.toString(128L << 20), "min-input-files", "1"),
                null,
                null,
                null));
    Table table = access.loadTable(TABLE);
    Set<String> big = dataFiles(access);
    assertThat(big).hasSize(4);
    FlinkUpsertTable.Layout compacted = FlinkUpsertTable.Layout.of(table);
    long mean = compacted.dataBytes() / compacted.dataFiles();
    table
        .updateProperties()
        .set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(Math.round(mean / 0.9)))
        .commit();
    cdc.table().refresh();
    for (int i = 0; i < 6; i++) {
      cdc.checkpoint(200);
    }
    return big;
  }

  private void sweep() {
    List<String> args = new ArrayList<>(List.of("sweep"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "cdc"));
    CliRun run = CliRun.of(args);
    assertThat(run.exitCode()).as("%s%n%s", run.out(), run.err()).isZero();
  }

  /** The equality delete files Iceberg's scan applies to a live data file. */
  private static long equalityDeletesApplying(TableAccess access) {
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = access.loadTable(TABLE).newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        task.deletes().stream()
            .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
            .forEach(delete -> files.add(delete.location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files.size();
  }

  private static Set<String> dataFiles(TableAccess access) {
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = access.loadTable(TABLE).newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        files.add(file.location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
