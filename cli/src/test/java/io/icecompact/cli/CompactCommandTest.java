package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code icecompact compact} on a small real table: exit codes, where output goes, what it says.
 */
class CompactCommandTest {
  static final String TABLE = "db.orders";

  @TempDir Path warehouse;
  String location;
  TestTables.State before;

  @BeforeEach
  void createTable() {
    location = TestTables.create(warehouse, TABLE, TestTables.SMALL);
    before = TestTables.State.of(warehouse, TABLE);
  }

  List<String> compact(String... more) {
    List<String> args = new ArrayList<>(List.of("compact", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void unknownOptionExitsTwoAndStderrNamesIt() {
    CliRun run = CliRun.of(compact("-o", "min-input-file=2"));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "error: Unknown rewrite option 'min-input-file' (did you mean 'min-input-files'?). Valid options: "
                + String.join(", ", RewriteOptions.validOptionNames())
                + System.lineSeparator());
    assertThat(run.out()).isEmpty();
    assertThat(run.systemOut()).isEmpty();
    assertThat(TestTables.State.of(warehouse, TABLE)).isEqualTo(before);
  }

  @Test
  void malformedWhereExitsTwo() {
    CliRun run = CliRun.of(compact("--where", "region = 'eu"));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "error: Malformed filter \"region = 'eu\": unterminated quote at position 9"
                + System.lineSeparator());
    assertThat(run.out()).isEmpty();
    assertThat(TestTables.State.of(warehouse, TABLE)).isEqualTo(before);
  }

  @Test
  void unknownTableExitsTwo() {
    List<String> args = new ArrayList<>(List.of("compact", "--table", "db.nope"));
    args.addAll(TestTables.catalogArgs(warehouse));
    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("error: Table not found: db.nope" + System.lineSeparator());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anErrorWithJsonPrintsAJsonErrorOnStdout() throws Exception {
    List<String> args = new ArrayList<>(List.of("compact", "--table", "db.nope", "--json"));
    args.addAll(TestTables.catalogArgs(warehouse));
    CliRun run = CliRun.of(args);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("error: Table not found: db.nope" + System.lineSeparator());
    JsonNode error = JobJson.mapper().readTree(run.out());
    assertThat(error.get("status").asText()).isEqualTo("ERROR");
    assertThat(error.get("error_type").asText()).isEqualTo("InvalidJobInputException");
    assertThat(error.get("message").asText()).isEqualTo("Table not found: db.nope");
    assertThat(error.get("exit_code").asInt()).isEqualTo(2);
    assertThat(run.systemOut()).isEmpty();
  }

  @Test
  void nothingToDoExitsZeroAndStdoutHasOnlyTheResult() {
    CliRun run = CliRun.of(compact("-o", "min-input-files=1000"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .matches("db\\.orders job-[0-9a-f]{12}: NOTHING_TO_DO in \\d+\\.\\d\\d s");
    assertThat(lines.get(1)).startsWith("  ").isNotBlank();
    // progress went to stderr, none of it to stdout
    assertThat(run.err()).contains("planned: nothing to do");
    assertThat(run.out()).doesNotContain("planned");
    assertThat(run.systemOut()).isEmpty();
    // the table is as it was; the job left only its result, for `history`
    String jobId = lines.get(0).split(" ")[1].replace(":", "");
    TestTables.State after = TestTables.State.of(warehouse, TABLE);
    assertThat(after.snapshotId()).isEqualTo(before.snapshotId());
    assertThat(after.rows()).isEqualTo(before.rows());
    Map<String, Long> added = new java.util.TreeMap<>(after.files());
    added.keySet().removeAll(before.files().keySet());
    assertThat(added.keySet()).containsExactly("_icecompact/" + jobId + "/result.json");
  }

  @Test
  void nothingToDoAsJsonIsOneJsonDocument() throws Exception {
    CliRun run = CliRun.of(compact("-o", "min-input-files=1000", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode result =
        JobJson.mapper()
            .readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .readValue(run.out());
    assertThat(result.get("status").asText()).isEqualTo("NOTHING_TO_DO");
    assertThat(result.get("table").asText()).isEqualTo(TABLE);
    assertThat(result.get("rewritten_data_files_count").asInt()).isZero();
    assertThat(result.get("reason").asText()).isNotBlank();
    assertThat(run.err()).contains("planned: nothing to do");
    assertThat(run.systemOut()).isEmpty();
  }

  /**
   * The CDC sequence (deletes, then more appends, then a full rewrite): Iceberg drops the equality
   * deletes as dangling in the same commit, and the result still says verified, exit 0.
   */
  @Test
  void fullRewriteOfACdcTableIsVerifiedAndExitsZero() throws Exception {
    TestTables.withTable(
        warehouse,
        TABLE,
        table -> {
          for (int day = 0; day < 3; day++) {
            table
                .newAppend()
                .appendFile(
                    FragmentedTable.dataFile(
                        table, List.of(FragmentedTable.newOrder(9_000_000L + day, day))))
                .commit();
          }
          return null;
        });
    Map<String, Long> rowsBefore = TestTables.State.of(warehouse, TABLE).rows();

    CliRun run = CliRun.of(compact("-o", "rewrite-all=true", "--json"));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    JsonNode result = JobJson.mapper().readTree(run.out());
    assertThat(result.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(result.get("verification").get("verified").asBoolean()).as(run.out()).isTrue();
    // 2 position delete files went with their data files, the equality deletes as dangling
    assertThat(result.get("removed_delete_files_count").asInt()).isGreaterThan(2);
    assertThat(TestTables.State.of(warehouse, TABLE).rows()).isEqualTo(rowsBefore);
  }

  /** The documented filter on the partition column compacts only the partitions it selects. */
  @Test
  void whereOnTheTimestampColumnCompactsOnlyMatchingPartitions() throws Exception {
    Map<String, String> filesBefore =
        TestTables.withTable(warehouse, TABLE, TestTables::liveDataFiles);

    CliRun run =
        CliRun.of(compact("--where", "ordered_at >= '2026-06-02' and region = 'eu'", "--json"));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    JsonNode result =
        JobJson.mapper()
            .readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .readValue(run.out());
    assertThat(result.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(result.get("rewritten_data_files_count").asInt()).isEqualTo(10);
    assertThat(result.get("added_data_files_count").asInt()).isEqualTo(2);
    assertThat(result.get("verification").get("verified").asBoolean()).isTrue();

    Map<String, String> filesAfter =
        TestTables.withTable(warehouse, TABLE, TestTables::liveDataFiles);
    Map<String, Long> perPartition =
        filesAfter.values().stream().collect(Collectors.groupingBy(p -> p, Collectors.counting()));
    assertThat(perPartition)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "ordered_at_day=2026-06-01", 5L,
                "ordered_at_day=2026-06-02", 1L,
                "ordered_at_day=2026-06-03", 1L));
    // the first day's files are untouched
    assertThat(
            filesAfter.entrySet().stream()
                .filter(e -> e.getValue().equals("ordered_at_day=2026-06-01"))
                .map(Map.Entry::getKey)
                .toList())
        .containsExactlyInAnyOrderElementsOf(
            filesBefore.entrySet().stream()
                .filter(e -> e.getValue().equals("ordered_at_day=2026-06-01"))
                .map(Map.Entry::getKey)
                .toList());
    // the filter selects files, never rows: every row is still there
    Map<String, Long> rowsAfter = TestTables.withTable(warehouse, TABLE, LiveRows::multiset);
    assertThat(rowsAfter).isEqualTo(before.rows());
  }

  /**
   * The acceptance command of issue 14: {@code compact -o strategy=sort -o sort-order=...},
   * embedded.
   */
  @Test
  void sortStrategyWritesEachFileInTheGivenOrder() throws Exception {
    CliRun run =
        CliRun.of(compact("-o", "strategy=sort", "-o", "sort-order=customer_id DESC", "--json"));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    JsonNode result = JobJson.mapper().readTree(run.out());
    assertThat(result.get("status").asText()).isEqualTo("COMMITTED");
    assertThat(result.get("verification").get("verified").asBoolean()).isTrue();
    for (JsonNode group : result.get("groups")) {
      assertThat(group.get("rewrite_path_reason").asText())
          .startsWith("rows are written in sort order customer_id DESC NULLS LAST");
    }
    assertThat(TestTables.State.of(warehouse, TABLE).rows()).isEqualTo(before.rows());
    List<List<Long>> customerIdsPerFile =
        TestTables.withTable(
            warehouse,
            TABLE,
            table -> {
              List<List<Long>> files = new ArrayList<>();
              for (org.apache.iceberg.FileScanTask task : table.newScan().planFiles()) {
                List<Long> ids = new ArrayList<>();
                try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> rows =
                    org.apache.iceberg.parquet.Parquet.read(
                            table.io().newInputFile(task.file().location()))
                        .project(table.schema())
                        .createReaderFunc(
                            fileSchema ->
                                org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(
                                    table.schema(), fileSchema))
                        .build()) {
                  rows.forEach(row -> ids.add((Long) row.getField("customer_id")));
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
                files.add(ids);
              }
              return files;
            });
    assertThat(customerIdsPerFile)
        .hasSize(3)
        .allSatisfy(
            ids ->
                assertThat(ids)
                    .hasSizeGreaterThan(100)
                    .isSortedAccordingTo(java.util.Comparator.reverseOrder()));
  }

  @Test
  void sortOrderNamingAnUnknownColumnExitsTwoWithTheTableUntouched() {
    CliRun run = CliRun.of(compact("-o", "sort-order=zorder(customer_id, shipped_at)"));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "error: 'sort-order' names column 'shipped_at', which the table does not have; its columns:"
                + " order_id, customer_id, region, amount, ordered_at, note"
                + System.lineSeparator());
    assertThat(run.out()).isEmpty();
    assertThat(TestTables.State.of(warehouse, TABLE)).isEqualTo(before);
  }
}
