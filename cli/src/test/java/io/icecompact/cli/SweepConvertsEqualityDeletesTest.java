package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.cli.fleet.EqualityDeleteWarehouse;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code icecompact sweep} runs what the fleet decided: the table whose data files are at their
 * target size gets its equality deletes converted (none left, rows unchanged), although its policy
 * holds a rewrite option a conversion does not take; the table of small files is rewritten. The
 * next sweep does not rewrite the converted table for the position deletes the conversion left.
 */
class SweepConvertsEqualityDeletesTest {
  @TempDir Path warehouse;

  @Test
  void theSweepConvertsTheTableAtTargetSizeAndRewritesTheOther() {
    EqualityDeleteWarehouse.build(warehouse);
    Map<String, Long> sizedBefore;
    Map<String, Long> smallBefore;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table sized = access.loadTable(EqualityDeleteWarehouse.SIZED);
      sized.updateProperties().set("icecompact.option.min-input-files", "2").commit();
      sizedBefore = LiveRows.multiset(sized);
      smallBefore = LiveRows.multiset(access.loadTable(EqualityDeleteWarehouse.SMALL));
      assertThat(equalityDeletes(sized)).isPositive();
    }
    List<String> args = new ArrayList<>(List.of("sweep"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "cdc"));

    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).as("%s%n%s", run.out(), run.err()).isZero();
    assertThat(run.out()).contains("CONVERT_EQUALITY_DELETES");
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table sized = access.loadTable(EqualityDeleteWarehouse.SIZED);
      assertThat(LiveRows.multiset(sized)).isEqualTo(sizedBefore);
      assertThat(equalityDeletes(sized)).isZero();
      // the job's snapshot (care steps may commit after it): a replace that added no data file
      assertThat(jobSnapshots(sized)).hasSize(1);
      assertThat(jobSnapshots(sized).get(0).operation()).isEqualTo("replace");
      assertThat(jobSnapshots(sized).get(0).summary()).doesNotContainKey("added-data-files");
      Table small = access.loadTable(EqualityDeleteWarehouse.SMALL);
      assertThat(LiveRows.multiset(small)).isEqualTo(smallBefore);
      assertThat(jobSnapshots(small))
          .isNotEmpty()
          .allSatisfy(snapshot -> assertThat(snapshot.summary()).containsKey("added-data-files"));
      // the next sweep does not rewrite the converted table's files at target for the position
      // delete file each carries now, as the v2 default delete-file-threshold=1 would (all 96);
      // only Iceberg's delete-ratio-threshold picks the files a third deleted
      TableAssessment next = new FleetAssessor(access).assess(EqualityDeleteWarehouse.SIZED);
      assertThat(next.reason())
          .contains("delete-file-threshold=1 left out: 96 of the 96 data files it would rewrite")
          .contains("delete-ratio-threshold still picks one whose rows are mostly deleted");
      assertThat(next.policy().options()).doesNotContainKey("delete-file-threshold");
      assertThat(next.prediction() == null ? 0 : next.prediction().dataFilesRead()).isLessThan(96);
    }
  }

  /** The snapshots a job of the sweep committed to {@code table}. */
  private static List<org.apache.iceberg.Snapshot> jobSnapshots(Table table) {
    List<org.apache.iceberg.Snapshot> jobs = new ArrayList<>();
    table
        .snapshots()
        .forEach(
            snapshot -> {
              if (snapshot.summary().containsKey("icecompact.job-id")) {
                jobs.add(snapshot);
              }
            });
    return jobs;
  }

  private static long equalityDeletes(Table table) {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      List<String> seen = new ArrayList<>();
      for (FileScanTask task : tasks) {
        task.deletes().stream()
            .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
            .forEach(d -> seen.add(d.location()));
      }
      return seen.stream().distinct().count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
