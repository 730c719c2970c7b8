package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.fixtures.TestTables;
import io.icecompact.testkit.EveryTableReaches;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: the steps that destroy history run only where someone asked for them. A table with a
 * retention set (its snapshots expirable) and an old orphan: a default sweep compacts it and
 * expires and deletes nothing; {@code --dry-run --care-steps ...} says what expiry and orphan
 * removal would remove and changes nothing; the same sweep without {@code --dry-run} removes
 * exactly that.
 */
class SweepCareOptInTest {
  static final FragmentedTable.Shape SHAPE = new FragmentedTable.Shape(2, 6, 50, 2, 1, 4, true);

  @TempDir Path warehouse;

  @Test
  void expiryAndOrphanRemovalRunOnlyWhenListedAndADryRunSaysWhatTheyWouldRemove()
      throws IOException {
    Map<String, String> catalog = LocalWarehouse.catalogProperties(warehouse);
    Path orphan;
    int snapshotsBefore;
    Map<String, Long> rows;
    try (TableAccess access = new TableAccess(catalog)) {
      Table table =
          FragmentedTable.create(access.catalog(), TableIdentifier.parse("db.events"), SHAPE);
      table.updateProperties().set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1").commit();
      orphan =
          Files.writeString(
              Path.of(table.location().replaceFirst("^file:", ""), "data", "orphan.parquet"),
              "no table reaches this");
      age(warehouse, Duration.ofDays(5)); // everything looks old: only reachability protects
      snapshotsBefore = snapshots(access.loadTable("db.events"));
      rows = LiveRows.multiset(access.loadTable("db.events"));
    }

    CliRun defaults = sweep();
    assertThat(defaults.exitCode()).as(defaults.err()).isZero();
    assertThat(defaults.out())
        .contains("rewrite-manifests")
        .doesNotContain("expire-snapshots")
        .doesNotContain("remove-orphans");
    int afterCompaction;
    try (TableAccess access = new TableAccess(catalog)) {
      afterCompaction = snapshots(access.loadTable("db.events"));
      assertThat(afterCompaction)
          .as("the compaction's snapshot added, none expired")
          .isGreaterThan(snapshotsBefore);
      assertThat(orphan).as("no orphan removal by default").exists();
    }

    // more writes, so the next sweep compacts again and reaches its care steps
    try (TableAccess access = new TableAccess(catalog)) {
      Table table = access.loadTable("db.events");
      for (int i = 0; i < 6; i++) {
        table
            .newAppend()
            .appendFile(
                FragmentedTable.dataFile(
                    table, List.of(FragmentedTable.newOrder(5_000_000 + i, 0))))
            .commit();
      }
      rows = LiveRows.multiset(access.loadTable("db.events"));
      afterCompaction = snapshots(access.loadTable("db.events"));
    }
    CliRun preview = sweep("--dry-run", "--care-steps", "expire-snapshots,remove-orphans");
    assertThat(preview.exitCode()).as(preview.err()).isZero();
    assertThat(preview.out())
        .containsPattern(
            "db\\.events expire-snapshots: would expire \\d+ of "
                + afterCompaction
                + " snapshots and delete \\d+ files \\(\\d+ bytes\\)")
        .containsPattern(
            "db\\.events remove-orphans: would delete [1-9]\\d* orphans \\(\\d+ bytes\\)")
        .contains("would be compacted (dry run: nothing was written)");
    try (TableAccess access = new TableAccess(catalog)) {
      assertThat(snapshots(access.loadTable("db.events")))
          .as("a dry run commits nothing")
          .isEqualTo(afterCompaction);
      assertThat(orphan).exists();
    }

    CliRun optedIn = sweep("--care-steps", "expire-snapshots,remove-orphans");
    assertThat(optedIn.exitCode()).as(optedIn.err()).isZero();
    assertThat(optedIn.err())
        .containsPattern("db\\.events: expire-snapshots: expired [1-9]\\d* of \\d+ snapshots");
    try (TableAccess access = new TableAccess(catalog)) {
      assertThat(snapshots(access.loadTable("db.events"))).isEqualTo(1);
      assertThat(orphan).doesNotExist();
      assertThat(LiveRows.multiset(access.loadTable("db.events"))).isEqualTo(rows);
      assertThat(EveryTableReaches.missingFiles(access.catalog())).isEmpty();
    }
  }

  /**
   * A refused step is not done: the row says so, the last line counts it apart, and the sweep exits
   * 1.
   */
  @Test
  void aRefusedStepMakesTheSweepExitOneAndIsCountedApart() {
    Map<String, String> catalog = LocalWarehouse.catalogProperties(warehouse);
    try (TableAccess access = new TableAccess(catalog)) {
      FragmentedTable.create(access.catalog(), TableIdentifier.parse("db.events"), SHAPE)
          .updateProperties()
          .set(TableProperties.GC_ENABLED, "false")
          .commit();
    }

    CliRun run = sweep("--care-steps", "rewrite-manifests,remove-orphans");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    List<String> lines = run.out().lines().toList();
    assertThat(lines)
        .anyMatch(
            line ->
                line.startsWith("db.events")
                    && line.contains("COMMITTED")
                    && line.contains("rewrite-manifests,remove-orphans (refused)"));
    assertThat(lines.get(lines.size() - 1))
        .contains("1 chosen to compact {COMMITTED=1}; care steps: {DONE=1, REFUSED=1}");
    assertThat(run.err())
        .contains(
            "db.events: remove-orphans refused: Refusing remove-orphans on db.events: "
                + "gc.enabled=false on this table");
  }

  @Test
  void anUnknownCareStepIsABadFlag() {
    CliRun run = sweep("--care-steps", "expire-snapshots,vacuum");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "Invalid value for option '--care-steps': --care-steps names an unknown step"
                + " 'vacuum'; steps: expire-snapshots, rewrite-manifests, remove-orphans, delete-cleanup, or none");
  }

  private CliRun sweep(String... extra) {
    List<String> args = new ArrayList<>(List.of("sweep"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of("--namespace", "db"));
    args.addAll(List.of(extra));
    return CliRun.of(args);
  }

  private static int snapshots(Table table) {
    int count = 0;
    for (var ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  private static void age(Path folder, Duration age) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(age)));
      }
    }
  }
}
