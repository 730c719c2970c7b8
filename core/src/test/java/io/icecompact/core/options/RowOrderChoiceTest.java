package io.icecompact.core.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.RowOrder;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RowOrderChoiceTest {
  private InMemoryCatalog catalog;
  private Table table;

  @BeforeEach
  void createTable() {
    catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    table =
        catalog.createTable(
            TableIdentifier.of("db", "t"),
            SortOrderTextTest.SCHEMA,
            PartitionSpec.builderFor(SortOrderTextTest.SCHEMA).identity("Region").build());
  }

  @AfterEach
  void close() throws IOException {
    catalog.close();
  }

  private RowOrder choose(String... keyValues) {
    Map<String, String> options = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      options.put(keyValues[i], keyValues[i + 1]);
    }
    return RowOrderChoice.of(RewriteOptions.parse(options), table, table.spec().specId());
  }

  @Test
  void binpackKeepsInputOrderOfAnUnsortedTable() {
    assertThat(choose()).isNull();
    assertThat(choose("strategy", "binpack")).isNull();
  }

  @Test
  void binpackKeepsTheOrderOfASortedTable() {
    table.replaceSortOrder().asc("name").commit();

    RowOrder order = choose();

    assertThat(order.sortOrder()).isEqualTo("name ASC NULLS FIRST");
    assertThat(order.outputSortOrderId()).isEqualTo(table.sortOrder().orderId());
  }

  @Test
  void sortWithoutAnyOrderIsRefusedNamingWhatToSet() {
    assertThatThrownBy(() -> choose("strategy", "sort"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'strategy' is sort but the table has no sort order and 'sort-order' is not set: set"
                + " 'sort-order' (e.g. \"id ASC\" or \"zorder(a, b)\") or give the table a sort order");
  }

  @Test
  void sortUsesTheTablesOrderAndItsIdByDefault() {
    table.replaceSortOrder().desc("id").commit();
    int tableOrderId = table.sortOrder().orderId();

    RowOrder order = choose("strategy", "sort");

    assertThat(order.sortOrder()).isEqualTo("id DESC NULLS LAST");
    assertThat(order.outputSortOrderId()).isEqualTo(tableOrderId).isPositive();
    assertThat(order.linearOrder(table.schema()).sameOrder(table.sortOrder())).isTrue();
    assertThat(order.zOrdered()).isFalse();
  }

  /** Spark's rewrite writes the id of the table's equal order, else 0 (unsorted). */
  @Test
  void givenOrderCarriesTheIdOfTheTablesEqualOrderElseUnsorted() {
    table.replaceSortOrder().desc("id").commit();

    assertThat(choose("sort-order", "ID DESC").outputSortOrderId())
        .isEqualTo(table.sortOrder().orderId());
    RowOrder other = choose("sort-order", "name, id DESC");
    assertThat(other.outputSortOrderId()).isZero();
    assertThat(other.sortOrder()).isEqualTo("name ASC NULLS FIRST, id DESC NULLS LAST");
  }

  @Test
  void zOrderIsUnsortedOnFilesAndLeavesOutIdentityPartitionColumns() {
    RowOrder order = choose("sort-order", "zorder(region, ts, id)");

    assertThat(order.zOrdered()).isTrue();
    assertThat(order.zOrderColumns()).containsExactly("ts", "id");
    assertThat(order.sortOrder()).isEqualTo("zorder(ts, id)");
    assertThat(order.outputSortOrderId()).isZero();
  }

  @Test
  void recordedOrderSurvivesTheJsonOfThePlan() {
    RowOrder order = choose("sort-order", "bucket(8, id) DESC, days(ts)");
    RowOrder read = JobJson.fromBytes(JobJson.toBytes(order), RowOrder.class, "row order");

    assertThat(read).isEqualTo(order);
    assertThat(read.linearOrder(table.schema()).sameOrder(order.linearOrder(table.schema())))
        .isTrue();
    assertThat(
            JobJson.fromBytes(
                JobJson.toBytes(choose("sort-order", "zorder(id, ts)")), RowOrder.class, "z"))
        .isEqualTo(
            new RowOrder("zorder(id, ts)", null, List.of("id", "ts"), 0, 8, Integer.MAX_VALUE));
    assertThat(
            choose(
                "sort-order",
                "zorder(id, name)",
                "var-length-contribution",
                "16",
                "max-output-size",
                "12"))
        .isEqualTo(new RowOrder("zorder(id, name)", null, List.of("id", "name"), 0, 16, 12));
  }
}
