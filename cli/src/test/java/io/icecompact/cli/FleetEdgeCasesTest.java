package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import io.icecompact.planner.fleet.TableHealth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Health of tables the lab does not shape: evolved specs, care snapshots, no snapshot, broken
 * metadata.
 */
class FleetEdgeCasesTest {
  @TempDir Path warehouse;

  /**
   * Partitions are counted per spec: compaction rewrites an older spec's files apart from the
   * current spec's. And a {@code replace} that only rewrote manifests is table care, not a
   * compaction.
   */
  @Test
  void partitionsArePerSpecAndRewritingManifestsIsNotACompaction() {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table =
          FragmentedTable.create(
              access.catalog(),
              TableIdentifier.parse("db.evolved"),
              new FragmentedTable.Shape(2, 3, 100, 2, 0, 0, true));
      table.updateSpec().addField("region").commit();
      for (int file = 0; file < 2; file++) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          Record row = FragmentedTable.newOrder(10_000 + file * 100 + i, 0);
          row.setField("region", "eu");
          rows.add(row);
        }
        table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
      }
      table.rewriteManifests().rewriteIf(manifest -> true).commit();
      table.refresh();
      assertThat(table.currentSnapshot().operation()).isEqualTo("replace");

      TableHealth health = TableHealth.of("db.evolved", table);

      // spec 0: days 0 and 1; spec 1: (day 0, eu), which is not spec 0's day 0
      assertThat(health.dataFiles()).isEqualTo(8);
      assertThat(health.partitions()).isEqualTo(3);
      assertThat(health.excessFiles()).isEqualTo(5);
      assertThat(health.snapshotsSinceCompaction()).isEqualTo(6 + 2 + 1);
      assertThat(health.lastCompactionMillis()).isNull();
      assertThat(health.score()).isEqualTo(5 + 9);
    }
  }

  @Test
  void aTableWithoutSnapshotsIsHealthyAndHasNothingToDo() {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      ((SupportsNamespaces) access.catalog()).createNamespace(Namespace.of("db"));
      access
          .catalog()
          .createTable(
              TableIdentifier.parse("db.empty"),
              FragmentedTable.SCHEMA,
              PartitionSpec.unpartitioned());

      TableAssessment empty = new FleetAssessor(access).assess("db.empty");

      assertThat(empty.health().score()).isZero();
      assertThat(empty.health().snapshotId()).isNull();
      assertThat(empty.decision()).isEqualTo(Decision.SKIP_NO_OP);
      assertThat(empty.reason())
          .isEqualTo("The table has no snapshot yet: there is nothing to rewrite");
    }
  }

  /**
   * A range rule only Iceberg's planner checks is still the table's property, named as the others
   * are.
   */
  @Test
  void anOptionThePlannerRejectsIsAnInvalidPolicyNamingIt() {
    TestTables.create(warehouse, "db.tiny", TestTables.SMALL);
    TestTables.withTable(
        warehouse,
        "db.tiny",
        table -> {
          table.updateProperties().set("icecompact.option.max-file-size-bytes", "1").commit();
          return null;
        });
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      TableAssessment tiny = new FleetAssessor(access).assess("db.tiny");

      assertThat(tiny.decision()).isEqualTo(Decision.SKIP_INVALID_POLICY);
      assertThat(tiny.reason())
          .startsWith(
              "Table db.tiny: property 'icecompact.option.max-file-size-bytes' is invalid: Invalid rewrite option:"
                  + " 'target-file-size-bytes' (536870912) must be < 'max-file-size-bytes' (1)");
    }
  }

  /**
   * One table whose manifest list is gone: its row says so, the others are assessed, health exits
   * 1.
   */
  @Test
  void anUnreadableTableDoesNotStopTheOthers() throws Exception {
    TestTables.create(warehouse, "db.fine", TestTables.SMALL);
    TestTables.create(warehouse, "db.broken", TestTables.SMALL);
    String manifestList =
        TestTables.withTable(
            warehouse, "db.broken", table -> table.currentSnapshot().manifestListLocation());
    Files.delete(TestTables.localPath(manifestList));

    List<TableAssessment> ranked;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      ranked = new FleetAssessor(access).assess(List.of("db"));
    }
    assertThat(ranked).extracting(TableAssessment::table).containsExactly("db.fine", "db.broken");
    assertThat(ranked.get(0).decision()).isEqualTo(Decision.COMPACT);
    assertThat(ranked.get(1).decision()).isEqualTo(Decision.SKIP_UNREADABLE);
    assertThat(ranked.get(1).reason()).contains(manifestList.replaceFirst("^file:", ""));

    List<String> args = new ArrayList<>(List.of("health", "--namespace", "db"));
    args.addAll(TestTables.catalogArgs(warehouse));
    CliRun run = CliRun.of(args);
    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_JOB_NOT_DONE);
    assertThat(run.out().lines())
        .anyMatch(line -> line.matches("db\\.broken +- +- .* SKIP_UNREADABLE .*"));
  }
}
