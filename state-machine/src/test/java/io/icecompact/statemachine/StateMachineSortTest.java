package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@code strategy=sort} through the state machine on the local stand-ins, as {@code compact -o
 * strategy=sort} runs embedded: the planner records the order, each worker Lambda sorts its group,
 * the files read back sorted with disjoint key ranges per partition; a malformed order fails in
 * PlanRewrite and writes nothing.
 */
class StateMachineSortTest extends StateMachineTestBase {

  @Test
  void aLinearSortWritesEachPartitionsFilesSortedWithDisjointRanges() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);

    Map<String, Object> input = input(catalog);
    input.put(
        "options",
        Map.of(
            "strategy",
            "sort",
            "sort-order",
            "order_id DESC",
            "rewrite-all",
            "true",
            "target-file-size-bytes",
            "4096"));
    ExecutionResult result = run(input);

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    JsonNode group = wholeResult(result.outputJson()).get("groups").get(0);
    assertThat(group.get("rewrite_path_reason").asText())
        .startsWith("rows are written in sort order order_id DESC");
    Table after = table();
    assertThat(LiveRows.multiset(after)).isEqualTo(rowsBefore);
    List<DataFile> live = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = after.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> live.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, List<DataFile>> byPartition =
        live.stream()
            .collect(Collectors.groupingBy(file -> after.spec().partitionToPath(file.partition())));
    assertThat(byPartition).hasSize(GROUPS);
    Comparator<Record> descending =
        Comparator.comparing((Record r) -> (Long) r.getField("order_id")).reversed();
    int orderId = FragmentedTable.SCHEMA.findField("order_id").fieldId();
    for (List<DataFile> files : byPartition.values()) {
      assertThat(files)
          .as("several files per partition, or ranges prove nothing")
          .hasSizeGreaterThan(1);
      List<long[]> ranges = new ArrayList<>();
      for (DataFile file : files) {
        assertThat(LiveRows.storedOrder(after, file)).isSortedAccordingTo(descending);
        ranges.add(
            new long[] {
              Conversions.<Long>fromByteBuffer(
                  Types.LongType.get(), file.lowerBounds().get(orderId)),
              Conversions.<Long>fromByteBuffer(
                  Types.LongType.get(), file.upperBounds().get(orderId))
            });
      }
      ranges.sort(Comparator.comparingLong(range -> range[0]));
      for (int i = 1; i < ranges.size(); i++) {
        assertThat(ranges.get(i)[0]).isGreaterThan(ranges.get(i - 1)[1]);
      }
    }
  }

  @Test
  void aSortOrderNamingAnUnknownColumnFailsInPlanRewriteAndWritesNothing() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();

    Map<String, Object> input = input(catalog);
    input.put("options", Map.of("sort-order", "zorder(customer_id, shipped_at)"));
    ExecutionResult result = run(input);

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states())
        .contains("PlanRewrite", "ReleaseLeaseAfterFailure")
        .doesNotContain("RewriteFileGroups");
    assertThat(result.error()).isEqualTo(InvalidJobInputException.class.getName());
    assertThat(result.cause())
        .contains("'sort-order' names column 'shipped_at', which the table does not have");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
  }
}
