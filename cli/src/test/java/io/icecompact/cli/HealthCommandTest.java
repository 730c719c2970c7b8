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
    List<String> all = run.out().lines().toList();
    List<String> lines = all.subList(0, all.indexOf(""));
    assertThat(lines).hasSize(10);
    assertThat(lines.get(0))
        .matches(
            "table +files +parts +excess +del files +dels/file +eq keys/MB +size/target +since"
                + " +score +decision +reason");
    assertThat(lines.get(1))
        .matches(
            "lab\\.stream +60 +12 +48 +0 +0 +0 +<1% +60 +108 +COMPACT +12 groups of 60 files.*");
    assertThat(lines.get(2)).startsWith("lab.dv3 ");
    assertThat(lines.get(3)).startsWith("lab.leftover ");
    // 40 equality-delete keys over 8 files of about 60 KB: about 80 keys per MB
    assertThat(lines.get(4))
        .matches(
            "lab\\.mor2 +8 +4 +4 +\\d+ +45 +[6-9]\\d +<1% +10 +14 +COMPACT .*; equality deletes: 4"
                + " equality delete files \\(40 keys\\) apply to 8 data files of .* \\(under 75%:"
                + " rewritten with their deletes applied, as compaction\\)");
    assertThat(lines.get(5))
        .matches("lab\\.hourly +90 +48 +42 +0 +0 +0 +<1% +8 +50 +SKIP_NO_OP +No file group met .*");
    assertThat(lines.subList(6, 10))
        .anyMatch(line -> line.matches("lab\\.fresh +5 +4 +1 +0 +0 +0 +<1% +1 +2 +SKIP_NO_OP .*"))
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
    // then the estimates of the one table with equality deletes
    assertThat(all.subList(lines.size() + 1, all.size()))
        .hasSize(4)
        .satisfies(
            estimates -> {
              assertThat(estimates.get(0)).startsWith("Equality deletes: estimates from metadata");
              assertThat(estimates.get(1))
                  .startsWith("lab.mor2: 4 equality delete files, 40 keys, apply to 8 data files (")
                  .endsWith("of the 512 MB target); decision COMPACT");
              assertThat(estimates.get(2))
                  .matches(
                      "  rewrite: read .* in \\d+ files, write about .* in 4 files, \\d+ requests;"
                          + " 4 data files after, 4 equality delete files retired .*");
              assertThat(estimates.get(3))
                  .matches(
                      "  convert: read .* \\(key columns .* from column_sizes, delete files .*\\)"
                          + " in \\d+ files, write 8 delete files of at most 320 B, \\d+ requests; 8"
                          + " data files untouched, 4 equality delete files retired, 40 keys no"
                          + " longer joined by readers");
            });
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
    assertThat(first.get("equality_deletes")).isNull(); // none on the stream
    assertThat(first.get("health").get("equality_delete_files").asLong()).isZero();
    JsonNode mor2 = null;
    for (JsonNode table : doc.get("tables")) {
      if (table.get("table").asText().equals("lab.mor2")) {
        mor2 = table;
      }
    }
    assertThat(mor2.get("health").get("equality_delete_records").asLong()).isEqualTo(40);
    assertThat(mor2.get("health").get("equality_keys_per_mb").asDouble()).isGreaterThan(0);
    assertThat(mor2.get("health").get("target_file_size_bytes").asLong()).isEqualTo(536870912L);
    assertThat(mor2.get("policy").get("equality_deletes").asText()).isEqualTo("auto");
    JsonNode eq = mor2.get("equality_deletes");
    assertThat(eq.get("data_files").asLong()).isEqualTo(8);
    assertThat(eq.get("key_column_bytes_source").asText()).isEqualTo("column_sizes");
    assertThat(eq.get("rewrite").get("files_written").asLong()).isEqualTo(4);
    assertThat(eq.get("convert").get("files_written").asLong()).isEqualTo(8);
    assertThat(eq.get("convert").get("bytes_read").asLong())
        .isLessThan(eq.get("rewrite").get("bytes_read").asLong());
  }
}
