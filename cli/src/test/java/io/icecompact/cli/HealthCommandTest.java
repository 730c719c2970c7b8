package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.fleet.HealthWarehouse;
import io.icecompact.core.job.JobJson;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code icecompact health} over the lab of docs/fleet.md: the ranked table a user reads, and its
 * JSON.
 */
class HealthCommandTest {
  @TempDir static Path warehouse;

  @BeforeAll
  static void build() {
    HealthWarehouse.build(warehouse);
  }

  static List<String> args(String... more) {
    List<String> args = new ArrayList<>(List.of("health"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void printsTheTablesRankedAsAnAlignedTable() throws Exception {
    CliRun run = CliRun.of(args("--namespace", "lab", "--namespace", "ops"));
    // kept for the docs and the closing note: what the lab looks like
    Files.writeString(Path.of("target", "health-table.txt"), run.out());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.systemOut()).isEmpty();
    List<String> lines = run.out().lines().toList();
    assertThat(lines).hasSize(10);
    assertThat(lines.get(0))
        .matches(
            "table +files +parts +excess +del files +dels/file +since +score +decision +reason");
    assertThat(lines.get(1))
        .matches("lab\\.stream +60 +12 +48 +0 +0 +60 +108 +COMPACT +12 groups of 60 files.*");
    assertThat(lines.get(2)).startsWith("lab.dv3 ");
    assertThat(lines.get(3)).startsWith("lab.leftover ");
    assertThat(lines.get(4)).matches("lab\\.mor2 +8 +4 +4 +\\d+ +45 +10 +14 +COMPACT .*");
    assertThat(lines.get(5))
        .matches("lab\\.hourly +90 +48 +42 +0 +0 +8 +50 +SKIP_NO_OP +No file group met .*");
    assertThat(lines.subList(6, 10))
        .anyMatch(line -> line.matches("lab\\.fresh +5 +4 +1 +0 +0 +1 +2 +SKIP_NO_OP .*"))
        .anyMatch(
            line -> line.matches("ops\\.optout .* SKIP_DISABLED +icecompact.enabled is false"))
        .anyMatch(line -> line.matches("ops\\.recent .* SKIP_TOO_SOON +last compaction at .*"))
        .anyMatch(
            line ->
                line.matches(
                    "ops\\.bad .* SKIP_INVALID_POLICY +Table ops.bad: property"
                        + " 'icecompact.option.min-input-files' is invalid: .*"));
    // the decision column starts at the same place on every line
    int column = lines.get(0).indexOf("decision");
    assertThat(lines.subList(1, lines.size()))
        .allMatch(
            line ->
                line.substring(column).startsWith("COMPACT")
                    || line.substring(column).startsWith("SKIP_"));
  }

  @Test
  void jsonHasEveryAssessmentInSnakeCase() throws Exception {
    CliRun run = CliRun.of(args("--namespace", "lab", "--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode doc = JobJson.mapper().readTree(run.out());
    assertThat(doc.get("namespaces").get(0).asText()).isEqualTo("lab");
    JsonNode first = doc.get("tables").get(0);
    assertThat(first.get("table").asText()).isEqualTo("lab.stream");
    assertThat(first.get("decision").asText()).isEqualTo("COMPACT");
    assertThat(first.get("health").get("excess_files").asLong()).isEqualTo(48);
    assertThat(first.get("health").get("snapshots_since_compaction").asInt()).isEqualTo(60);
    assertThat(first.get("health").get("score").asDouble()).isEqualTo(108.0);
    assertThat(first.get("policy").get("options").get("partial-progress.enabled").asText())
        .isEqualTo("true");
    assertThat(first.get("policy").get("min_interval").asText()).isEqualTo("PT0S");
    assertThat(first.get("prediction").get("reader_requests_saved_per_scan").asLong())
        .isEqualTo(48);
    assertThat(doc.get("tables")).hasSize(6);
  }
}
