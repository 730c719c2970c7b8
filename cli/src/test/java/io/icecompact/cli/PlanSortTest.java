package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.fixtures.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code icecompact plan} shows the strategy and the order each group's rows will be written in.
 */
class PlanSortTest {
  static final String TABLE = "db.orders";

  @TempDir Path warehouse;

  @BeforeEach
  void createTable() {
    TestTables.create(warehouse, TABLE, TestTables.SMALL);
  }

  private CliRun plan(String... options) {
    List<String> args = new ArrayList<>(List.of("plan", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(warehouse));
    for (String option : options) {
      args.addAll(List.of("-o", option));
    }
    return CliRun.of(args);
  }

  @Test
  void zOrderIsShownWithTheUnsortedIdItsFilesWillCarry() {
    CliRun run = plan("sort-order=ZORDER(customer_id,order_id)");

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(1))
        .isEqualTo(
            "  strategy sort by zorder(customer_id, order_id) (files written with sort order id 0)");
    assertThat(lines.subList(2, lines.size()))
        .isNotEmpty()
        .allSatisfy(
            line ->
                assertThat(line)
                    .endsWith(
                        "generic (rows are written in sort order zorder(customer_id, order_id): the columnar path keeps"
                            + " input row order)"));
  }

  @Test
  void binpackOnASortedTableSaysItKeepsTheTablesOrder() {
    TestTables.withTable(
        warehouse,
        TABLE,
        table -> {
          table.replaceSortOrder().desc("order_id").commit();
          return null;
        });

    CliRun run = plan();

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines().toList().get(1))
        .isEqualTo(
            "  strategy binpack, keeping the table's sort order order_id DESC NULLS LAST in each group a worker"
                + " can sort in memory (files written with sort order id 1)");
  }
}
