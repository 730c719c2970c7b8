package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FlinkUpsertTable.Mode;
import io.icecompact.fixtures.FlinkUpsertTable.Shape;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code icecompact convert-deletes} on a Flink upsert table: exit codes, output, the table. */
class ConvertDeletesCommandTest {
  static final String TABLE = "cdc.events";

  @TempDir Path warehouse;
  Map<String, Long> before;
  long equalityDeletesBefore;

  @BeforeEach
  void createTable() {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table =
          FlinkUpsertTable.create(
                  access.catalog(),
                  TableIdentifier.parse(TABLE),
                  Shape.small(Mode.UPSERT, 2, false))
              .table();
      before = LiveRows.multiset(table);
      equalityDeletesBefore = equalityDeletes(table);
    }
  }

  private List<String> convert(String... more) {
    List<String> args = new ArrayList<>(List.of("convert-deletes", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void convertsAndSaysWhatItConverted() {
    CliRun run = CliRun.of(convert());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(": COMMITTED in ")
        .contains("equality delete files: " + equalityDeletesBefore + " converted, 0 kept")
        .contains("none rewritten");
    assertThat(run.systemOut()).isEmpty();
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table = access.loadTable(TABLE);
      assertThat(LiveRows.multiset(table)).isEqualTo(before);
      assertThat(equalityDeletes(table)).isZero();
    }
  }

  @Test
  void historySaysTheJobConvertedRatherThanRewrote() {
    assertThat(CliRun.of(convert()).exitCode()).isZero();
    List<String> args = new ArrayList<>(List.of("history", "--table", TABLE));
    args.addAll(TestTables.catalogArgs(warehouse));

    CliRun history = CliRun.of(args);

    assertThat(history.exitCode()).as(history.err()).isZero();
    assertThat(history.out())
        .contains(equalityDeletesBefore + " eq deletes -> ")
        .contains(" converted")
        .doesNotContain("rewritten");
  }

  @Test
  void jsonCarriesTheConversionCounts() {
    CliRun run = CliRun.of(convert("--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode result = JobJson.tree(run.out());
    assertThat(result.path("status").asText()).isEqualTo("COMMITTED");
    assertThat(result.path("conversion").path("converted_equality_delete_files_count").asLong())
        .isEqualTo(equalityDeletesBefore);
    assertThat(result.path("groups").get(0).path("status").asText()).isEqualTo("CONVERTED");
  }

  @Test
  void aRewriteOnlyOptionExitsTwoAndLeavesTheTable() {
    CliRun run = CliRun.of(convert("-o", "target-file-size-bytes=1000"));

    assertThat(run.exitCode()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err())
        .startsWith(
            "error: Option 'target-file-size-bytes' does not apply to convert-equality-deletes");
    assertThat(run.out()).isEmpty();
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      assertThat(equalityDeletes(access.loadTable(TABLE))).isEqualTo(equalityDeletesBefore);
    }
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
