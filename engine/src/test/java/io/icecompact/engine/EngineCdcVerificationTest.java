package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.FragmentedTable.Shape;
import io.icecompact.fixtures.LiveRows;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CDC sequence of issue 11: appends, position and equality deletes, more appends, then a full
 * rewrite. The rewrite raises the table's lowest data sequence number past the equality deletes, so
 * Iceberg's {@code RewriteFiles} drops them as dangling in the same commit, beside the position
 * deletes (v2 files, v3 deletion vectors) the committer removes itself. The commit is correct and
 * must be reported verified.
 */
class EngineCdcVerificationTest extends EngineTestBase {

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void fullRewriteAfterDeletesAndMoreAppendsIsVerified(int formatVersion) {
    Table table = create(new Shape(4, 5, 200, formatVersion, 2, 10, true));
    appendMoreOrders(table);
    Map<String, DeleteFile> deletesBefore = liveDeletes(table);
    long positionDeletes =
        deletesBefore.values().stream()
            .filter(d -> d.content() == FileContent.POSITION_DELETES)
            .count();
    long equalityDeletes =
        deletesBefore.values().stream()
            .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
            .count();
    assertThat(positionDeletes).isEqualTo(2);
    assertThat(equalityDeletes).isPositive();
    Schema columns =
        formatVersion >= 3 ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema();
    Map<String, Long> before = LiveRows.multiset(table, columns);
    int snapshotsBefore = snapshots(table).size();

    JobResult result = run(job(options(RewriteOptions.REWRITE_ALL, "true")));

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.verification().problems()).isEmpty();
    assertThat(result.verification().verified()).isTrue();
    assertAllOutcomes(result, GroupOutcome.Status.REWRITTEN);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    Snapshot replace = added.get(0);
    assertThat(replace.operation()).isEqualTo(DataOperations.REPLACE);
    // the position deletes went with their data files, the equality deletes as dangling: none is
    // left
    Set<String> removed = new HashSet<>();
    replace
        .removedDeleteFiles(table.io())
        .forEach(d -> removed.add(d.location() + "@" + d.contentOffset()));
    assertThat(removed).isEqualTo(deletesBefore.keySet());
    assertThat(result.removedDeleteFilesCount()).isEqualTo(positionDeletes + equalityDeletes);
    assertThat(summaryLong(replace, SnapshotSummary.REMOVED_DELETE_FILES_PROP))
        .isEqualTo(positionDeletes + equalityDeletes);
    assertThat(summaryLong(replace, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
    assertThat(liveDeletes(table)).isEmpty();
    // 4 day partitions: one output file each
    assertThat(liveDataFiles(table)).hasSize(4);
    assertThat(result.addedDataFilesCount()).isEqualTo(4);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(4 * 5 + 4);
    assertThat(LiveRows.multiset(table, columns)).isEqualTo(before);
  }

  /** One more file per day partition, committed after the deletes (higher sequence numbers). */
  private static void appendMoreOrders(Table table) {
    long id = 5_000_000;
    for (int day = 0; day < 4; day++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        rows.add(FragmentedTable.newOrder(id++, day));
      }
      table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
    }
    table.refresh();
  }
}
