package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.care.ExpireSnapshotsStep;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

/**
 * {@link ExpireSnapshotsStep} on a compacted table: the retention the table's properties set is
 * what Iceberg applies, the files only expired snapshots reached are deleted, and what remains
 * reads the same rows with every file in place.
 */
class ExpireSnapshotsStepTest extends CareTestBase {
  /**
   * 4 day partitions of 5 files of 200 rows, 2 files with position deletes, 10 equality-deleted
   * ids.
   */
  static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(4, 5, 200, 2, 2, 10, true);

  @Test
  void expiresWhatTheTablesRetentionAllowsAndDeletesOnlyUnreachableFiles() {
    Table table = create(SMALL);
    assertThat(compact(Map.of(), null).status()).isEqualTo(JobStatus.COMMITTED);
    table = load();
    Map<String, Long> rows = LiveRows.multiset(table);
    List<Snapshot> before = new ArrayList<>();
    table.snapshots().forEach(before::add);
    // a tag on the first snapshot: a ref's own retention (tags are kept forever by default)
    long tagged = before.get(0).snapshotId();
    table.manageSnapshots().createTag("first", tagged).commit();
    table
        .updateProperties()
        .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1")
        .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "2")
        .commit();
    Set<String> reachableBefore = new HashSet<>();
    before.forEach(snapshot -> reachableBefore.addAll(filesOf(load(), snapshot)));

    ExpireSnapshotsStep.Report report =
        new ExpireSnapshotsStep(access.catalog(), TABLE).run(load());

    table = load();
    List<Long> remaining = new ArrayList<>();
    table.snapshots().forEach(snapshot -> remaining.add(snapshot.snapshotId()));
    Snapshot current = table.currentSnapshot();
    assertThat(remaining)
        .as("the two newest (min-snapshots-to-keep=2) and the tagged one")
        .containsExactlyInAnyOrder(tagged, current.snapshotId(), current.parentId());
    assertThat(report.snapshotsBefore()).isEqualTo(before.size());
    assertThat(report.snapshotsExpired()).isEqualTo(before.size() - 3);
    assertThat(table.history()).extracting(entry -> entry.snapshotId()).isSubsetOf(remaining);
    assertThat(report.problems()).isEmpty();

    Set<String> stillReachable = new HashSet<>();
    for (long id : remaining) {
      stillReachable.addAll(filesOf(table, table.snapshot(id)));
    }
    assertThat(stillReachable).allSatisfy(file -> assertThat(exists(file)).as(file).isTrue());
    assertThat(report.filesDeleted().count()).isPositive();
    assertThat(report.filesDeleted().sample())
        .allSatisfy(
            file -> {
              assertThat(exists(file)).as(file).isFalse();
              assertThat(stillReachable).doesNotContain(file);
            });
    Set<String> expectedGone = new HashSet<>(reachableBefore);
    expectedGone.removeAll(stillReachable);
    assertThat(expectedGone).allSatisfy(file -> assertThat(exists(file)).as(file).isFalse());
    assertThat(report.filesDeleted().count())
        .as("deleted, of %s", expectedGone)
        .isEqualTo(expectedGone.size());
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    System.err.printf(
        "expire: %d -> %d snapshots, %d files deleted%n",
        report.snapshotsBefore(), report.snapshotsAfter(), report.filesDeleted().count());
  }

  @Test
  void defaultRetentionOfFiveDaysExpiresNothingFresh() {
    create(SMALL);
    ExpireSnapshotsStep.Report report =
        new ExpireSnapshotsStep(access.catalog(), TABLE).run(load());
    assertThat(report.snapshotsExpired()).isZero();
    assertThat(report.filesDeleted().count()).isZero();
  }

  /**
   * Issue 24: with {@code history.expire.max-ref-age-ms=1} the tag went while the report said
   * "expired 0 of 2 snapshots". The ref is named; the preview names it before anything happens.
   */
  @Test
  void aTagPastItsMaximumAgeIsNamedInTheReportAndThePreview() {
    Table table = create(SMALL);
    long first = table.snapshots().iterator().next().snapshotId();
    table.manageSnapshots().createTag("release-1", first).createBranch("audit", first).commit();
    table.updateProperties().set(TableProperties.MAX_REF_AGE_MS, "1").commit();
    Map<String, Long> rows = LiveRows.multiset(load());
    ExpireSnapshotsStep step = new ExpireSnapshotsStep(access.catalog(), TABLE);

    ExpireSnapshotsStep.Report preview = step.preview(load());
    assertThat(preview.dryRun()).isTrue();
    assertThat(preview.refsRemoved()).containsExactly("branch audit", "tag release-1");
    assertThat(preview.summary()).contains("refs removed with them: branch audit, tag release-1");
    assertThat(load().refs()).containsKeys("release-1", "audit");

    ExpireSnapshotsStep.Report report = step.run(load());

    assertThat(load().refs()).doesNotContainKeys("release-1", "audit");
    assertThat(report.refsRemoved()).containsExactly("branch audit", "tag release-1");
    assertThat(report.summary())
        .startsWith("expired ")
        .contains("refs removed: branch audit, tag release-1");
    assertThat(report.snapshotsExpired()).isEqualTo(preview.snapshotsExpired());
    assertThat(report.filesDeleted().count()).isEqualTo(preview.filesDeleted().count());
    assertThat(report.problems()).isEmpty();
    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
  }

  /**
   * The preview is Iceberg's own expiry on a copy of the metadata: it names what the run then
   * removes.
   */
  @Test
  void thePreviewCountsWhatTheRunThenDeletesAndChangesNothing() {
    create(SMALL);
    assertThat(compact(Map.of(), null).status()).isEqualTo(JobStatus.COMMITTED);
    load().updateProperties().set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1").commit();
    int snapshots = 0;
    for (Snapshot ignored : load().snapshots()) {
      snapshots++;
    }
    ExpireSnapshotsStep step = new ExpireSnapshotsStep(access.catalog(), TABLE);

    ExpireSnapshotsStep.Report preview = step.preview(load());
    int after = 0;
    for (Snapshot ignored : load().snapshots()) {
      after++;
    }
    assertThat(after).as("a preview commits nothing").isEqualTo(snapshots);
    assertThat(preview.filesDeleted().sample())
        .allSatisfy(file -> assertThat(exists(file)).as(file).isTrue());

    ExpireSnapshotsStep.Report report = step.run(load());
    assertThat(report.snapshotsExpired()).isEqualTo(preview.snapshotsExpired()).isPositive();
    assertThat(report.filesDeleted().count()).isEqualTo(preview.filesDeleted().count());
    assertThat(report.filesDeleted().bytes())
        .isEqualTo(preview.filesDeleted().bytes())
        .isPositive();
    assertThat(new HashSet<>(report.filesDeleted().sample()))
        .containsAll(
            preview.filesDeleted().count() <= 20 ? preview.filesDeleted().sample() : List.of());
  }
}
