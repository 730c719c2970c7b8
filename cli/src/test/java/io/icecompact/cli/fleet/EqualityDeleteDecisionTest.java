package io.icecompact.cli.fleet;

import static io.icecompact.cli.fleet.EqualityDeleteWarehouse.SIZED;
import static io.icecompact.cli.fleet.EqualityDeleteWarehouse.SMALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.icecompact.core.job.JobAction;
import io.icecompact.core.policy.EqualityDeletesAction;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.EqualityDeleteCosts;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.SweepInput;
import io.icecompact.planner.fleet.SweepPlan;
import io.icecompact.planner.fleet.TableAssessment;
import io.icecompact.planner.fleet.TableHealth;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decision tree's step for equality deletes (docs/fleet.md): on Flink upsert tables, small data
 * files are rewritten with their deletes applied, data files at their target size get their
 * equality deletes converted, {@code icecompact.equality-deletes.action} overrides either way, and
 * the health figures and cost estimates are what the metadata says (checked against Iceberg's own
 * scan).
 */
class EqualityDeleteDecisionTest {
  private static final String PROPERTY = "icecompact.equality-deletes.action";

  @TempDir static Path warehouse;

  @BeforeAll
  static void build() {
    EqualityDeleteWarehouse.build(warehouse);
  }

  private static TableAssessment assess(String table) {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      return new FleetAssessor(access).assess(table);
    }
  }

  /** Assesses {@code table} with {@code property} set to {@code value}, then removes it. */
  private static TableAssessment assessWith(String table, String value) {
    return withProperty(table, value, () -> assess(table));
  }

  private static <T> T withProperty(String table, String value, Supplier<T> body) {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      access.loadTable(table).updateProperties().set(PROPERTY, value).commit();
      try {
        return body.get();
      } finally {
        access.loadTable(table).updateProperties().remove(PROPERTY).commit();
      }
    }
  }

  private static EqualityDeleteWarehouse.Expected expected(String table) {
    return TestTables.withTable(
        warehouse,
        table,
        t ->
            EqualityDeleteWarehouse.Expected.of(
                t,
                PropertyUtil.propertyAsLong(
                    t.properties(),
                    TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                    TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT)));
  }

  @Test
  void smallFilesWithEqualityDeletesAreRewritten() {
    TableAssessment small = assess(SMALL);

    assertThat(small.decision()).isEqualTo(Decision.COMPACT);
    assertThat(small.policy().equalityDeletes()).isEqualTo(EqualityDeletesAction.AUTO);
    assertThat(small.equalityDeletes().meanOfTarget()).isLessThan(0.01);
    assertThat(small.reason())
        .contains("; equality deletes: ")
        .contains("of the 512 MB target (under 75%: rewritten with their deletes applied");
    assertThat(small.prediction().dataFilesRead()).isGreaterThan(0);
  }

  @Test
  void dataFilesAtTargetGetTheirEqualityDeletesConverted() {
    TableAssessment sized = assess(SIZED);

    assertThat(sized.decision()).isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
    assertThat(sized.decision().jobAction()).isEqualTo(JobAction.CONVERT_EQUALITY_DELETES);
    assertThat(sized.equalityDeletes().meanOfTarget()).isBetween(0.75, 1.0);
    assertThat(sized.reason())
        .matches(
            "\\d+ equality delete files \\(\\d+ keys\\) apply to \\d+ data files of .* on average,"
                + " 90% of the .* target \\(at least 75%: converted, reading about .* of key"
                + " columns and delete files instead of rewriting .*\\)");
    assertThat(sized.prediction()).isNull(); // no rewrite is planned for it
  }

  @Test
  void thePropertyOverridesTheChoiceBothWays() {
    TableAssessment converted = assessWith(SMALL, "convert");
    assertThat(converted.decision()).isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
    assertThat(converted.policy().equalityDeletes()).isEqualTo(EqualityDeletesAction.CONVERT);
    assertThat(converted.reason()).endsWith("; icecompact.equality-deletes.action is convert");

    TableAssessment rewritten = assessWith(SIZED, " Rewrite ");
    assertThat(rewritten.decision()).isEqualTo(Decision.COMPACT);
    assertThat(rewritten.reason()).endsWith("; icecompact.equality-deletes.action is rewrite");
    assertThat(rewritten.prediction().dataFilesRead()).isGreaterThan(0);

    // auto is the default, said explicitly
    assertThat(assessWith(SIZED, "auto").decision()).isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
    assertThat(assessWith(SMALL, "auto").decision()).isEqualTo(Decision.COMPACT);
  }

  @Test
  void aBadValueIsRefusedNamingThePropertyAndTheValidValues() {
    TableAssessment bad = assessWith(SIZED, "sometimes");

    assertThat(bad.decision()).isEqualTo(Decision.SKIP_INVALID_POLICY);
    assertThat(bad.reason())
        .isEqualTo(
            "Table cdc.sized: property 'icecompact.equality-deletes.action' is 'sometimes' but"
                + " must be one of auto, rewrite, convert");
  }

  @Test
  void healthCountsEqualityKeysPerMegabyteOfData() {
    for (String name : List.of(SMALL, SIZED)) {
      TableHealth health = assess(name).health();
      FlinkUpsertTable.Layout layout =
          TestTables.withTable(warehouse, name, FlinkUpsertTable.Layout::of);

      assertThat(layout.equalityDeleteFiles()).as(name).isGreaterThan(0);
      assertThat(health.equalityDeleteFiles()).as(name).isEqualTo(layout.equalityDeleteFiles());
      assertThat(health.equalityDeleteRecords()).as(name).isEqualTo(layout.equalityDeletes());
      assertThat(health.equalityKeysPerMb())
          .as(name)
          .isCloseTo(
              layout.equalityDeletes() / (layout.dataBytes() / (1024.0 * 1024)), within(1e-9));
      assertThat(health.meanDataFileBytes()).isEqualTo(layout.dataBytes() / layout.dataFiles());
    }
    assertThat(assess(SMALL).health().targetFileSizeBytes())
        .isEqualTo(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * Each figure of the estimate against Iceberg's scan: the data files it matches equality deletes
   * to, their delete files, and the key column's bytes from the files' column sizes.
   */
  @Test
  void theCostEstimatesAreWhatTheMetadataSays() {
    for (String name : List.of(SMALL, SIZED)) {
      EqualityDeleteCosts c = assess(name).equalityDeletes();
      EqualityDeleteWarehouse.Expected e = expected(name);

      assertThat(e.dataFiles()).as(name).isGreaterThan(0);
      assertThat(c.equalityDeleteFiles()).as(name).isEqualTo(e.equalityDeleteFiles());
      assertThat(c.equalityKeys()).as(name).isEqualTo(e.equalityKeys());
      assertThat(c.dataFiles()).as(name).isEqualTo(e.dataFiles());
      assertThat(c.dataBytes()).as(name).isEqualTo(e.dataBytes());
      assertThat(c.dataRows()).as(name).isEqualTo(e.dataRows());
      assertThat(c.deleteFiles()).as(name).isEqualTo(e.deleteFiles());
      assertThat(c.deleteBytes()).as(name).isEqualTo(e.deleteBytes());
      assertThat(c.keyColumnBytesSource()).isEqualTo("column_sizes");
      assertThat(c.keyColumnBytes()).as(name).isEqualTo(e.keyColumnBytes());
      // the key column is a small part of the data: what converting saves in reads
      assertThat(c.keyColumnBytes()).isLessThan(e.dataBytes() / 2);

      EqualityDeleteCosts.ActionCost rewrite = c.rewrite();
      assertThat(rewrite.filesRead()).isEqualTo(e.dataFiles() + e.deleteFiles());
      assertThat(rewrite.bytesRead()).isEqualTo(e.dataBytes() + e.deleteBytes());
      assertThat(rewrite.bytesWrittenEstimate()).isEqualTo(e.dataBytes());
      assertThat(rewrite.filesWritten()).as(name).isEqualTo(e.rewriteFilesWritten());
      assertThat(rewrite.requests())
          .isEqualTo(e.dataFiles() + e.deleteFiles() + e.rewriteFilesWritten());
      assertThat(rewrite.equalityDeleteFilesRetired()).isEqualTo(e.equalityDeleteFiles());

      EqualityDeleteCosts.ActionCost convert = c.convert();
      assertThat(convert.filesRead()).isEqualTo(e.dataFiles() + e.deleteFiles());
      assertThat(convert.bytesRead()).isEqualTo(e.keyColumnBytes() + e.deleteBytes());
      assertThat(convert.bytesRead()).isLessThan(rewrite.bytesRead());
      assertThat(convert.filesWritten()).isEqualTo(e.dataFiles());
      assertThat(convert.requests()).isEqualTo(2 * e.dataFiles() + e.deleteFiles());
      assertThat(convert.bytesWrittenEstimate())
          .isEqualTo(
              Math.min(e.equalityKeys(), e.dataRows()) * EqualityDeleteCosts.BYTES_PER_POSITION);
      assertThat(convert.dataFilesAfter()).isEqualTo(e.dataFiles());
    }
    // at 512 MB a partition's files rewrite into one: four buckets, four files
    assertThat(assess(SMALL).equalityDeletes().rewrite().filesWritten()).isEqualTo(4);
    // at about the files' own size, about one file per file
    assertThat(assess(SIZED).equalityDeletes().rewrite().filesWritten())
        .isGreaterThan(expected(SIZED).dataFiles() / 2);
  }

  /** The deployed sweep's plan asks the compaction state machine for the conversion. */
  @Test
  void theSweepPlanPassesTheActionToTheCompaction() {
    SweepInput input =
        new SweepInput(TestTables.catalog(warehouse), List.of("cdc"), 10, 2, null, null, null);
    List<TableAssessment> ranked;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      ranked = new FleetAssessor(access).assess(List.of("cdc"));
    }
    SweepPlan plan = SweepPlan.of(ranked, input, "sweep-1");

    assertThat(plan.compactCount()).isEqualTo(2);
    assertThat(plan.decisions())
        .containsEntry(Decision.CONVERT_EQUALITY_DELETES, 1)
        .containsEntry(Decision.COMPACT, 1);
    Map<String, JobAction> actions =
        plan.toCompact().stream()
            .collect(
                java.util.stream.Collectors.toMap(
                    SweepPlan.TableToCompact::table, t -> JobAction.orDefault(t.input().action())));
    assertThat(actions)
        .containsEntry(SIZED, JobAction.CONVERT_EQUALITY_DELETES)
        .containsEntry(SMALL, JobAction.REWRITE_DATA_FILES);
    // a rewrite's input stays as it was: no action field
    String json = io.icecompact.core.job.JobJson.toJson(plan);
    assertThat(json).containsOnlyOnce("\"action\":\"convert-equality-deletes\"");
  }

  /**
   * {@code icecompact.where} scopes the choice as it scopes the jobs: deletes that apply only to
   * data files outside it start no conversion (which would find nothing, every sweep).
   */
  @Test
  void onlyTheDataFilesTheTablesWhereSelectsCount() {
    TableAssessment outside = assessWithWhere(SIZED, "id < 0");
    assertThat(outside.decision()).isEqualTo(Decision.SKIP_NO_OP);
    assertThat(outside.equalityDeletes()).isNull();
    assertThat(outside.reason()).doesNotContain("equality delete");

    TableAssessment inside = assessWithWhere(SIZED, "id >= 0");
    assertThat(inside.decision()).isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
    assertThat(inside.equalityDeletes().dataFiles()).isEqualTo(expected(SIZED).dataFiles());
  }

  private static TableAssessment assessWithWhere(String table, String where) {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      access.loadTable(table).updateProperties().set("icecompact.where", where).commit();
      try {
        return assess(table);
      } finally {
        access.loadTable(table).updateProperties().remove("icecompact.where").commit();
      }
    }
  }

  /** In its own namespace, so the sweep plan above does not see it. */
  @Test
  void aTableWithoutEqualityDeletesGetsNoEstimate() {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      String name = "plain.positions_only";
      TestTables.create(warehouse, name, new FragmentedTable.Shape(3, 5, 200, 2, 2, 0, true));
      TableAssessment plain = new FleetAssessor(access).assess(name);
      Table table = access.loadTable(name);
      assertThat(table.currentSnapshot()).isNotNull();
      assertThat(plain.equalityDeletes()).isNull();
      assertThat(plain.health().equalityDeleteFiles()).isZero();
      assertThat(plain.reason()).doesNotContain("equality deletes");
    }
  }
}
