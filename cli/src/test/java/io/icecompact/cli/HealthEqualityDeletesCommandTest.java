package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.fleet.EqualityDeleteWarehouse;
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
 * {@code icecompact health} on two Flink upsert tables: the one whose data files are at their
 * target size is decided {@code CONVERT_EQUALITY_DELETES}, the one of small files {@code COMPACT},
 * and each has its equality-delete figures and both estimates printed.
 */
class HealthEqualityDeletesCommandTest {
  @TempDir static Path warehouse;

  @BeforeAll
  static void build() {
    EqualityDeleteWarehouse.build(warehouse);
  }

  private static List<String> args(String... more) {
    List<String> args = new ArrayList<>(List.of("health", "--namespace", "cdc"));
    args.addAll(TestTables.catalogArgs(warehouse));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void printsTheChosenActionAndBothEstimates() throws Exception {
    CliRun run = CliRun.of(args());
    // kept for the docs: what the two tables look like
    Files.writeString(Path.of("target", "health-cdc.txt"), run.out());

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(1))
        .matches(
            "cdc\\.sized +\\d+ +4 +\\d+ +\\d+ +\\d+ +\\d+ +\\d+% +\\d+ +\\d+ +CONVERT_EQUALITY_DELETES"
                + " +\\d+ equality delete files .* \\(at least 75%: converted, .*\\)");
    assertThat(lines.get(2))
        .matches(
            "cdc\\.small +\\d+ +4 +.* +<1% +\\d+ +\\d+ +COMPACT +\\d+ groups of \\d+ files would be"
                + " rewritten into about \\d+; equality deletes: .* \\(under 75%: .*\\)");
    assertThat(lines)
        .anyMatch(line -> line.matches("cdc\\.sized: .*; decision CONVERT_EQUALITY_DELETES"))
        .anyMatch(line -> line.matches("cdc\\.small: .*; decision COMPACT"))
        .filteredOn(line -> line.startsWith("  convert: "))
        .hasSize(2)
        .allMatch(line -> line.contains(" from column_sizes, "));
  }

  @Test
  void jsonCarriesTheFiguresAndTheDecision() throws Exception {
    CliRun run = CliRun.of(args("--json"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode sized = JobJson.mapper().readTree(run.out()).get("tables").get(0);
    assertThat(sized.get("table").asText()).isEqualTo("cdc.sized");
    assertThat(sized.get("decision").asText()).isEqualTo("CONVERT_EQUALITY_DELETES");
    assertThat(sized.get("health").get("equality_keys_per_mb").asDouble()).isGreaterThan(0);
    JsonNode eq = sized.get("equality_deletes");
    assertThat(eq.get("mean_of_target").asDouble()).isBetween(0.75, 1.0);
    assertThat(eq.get("convert").get("requests").asLong())
        .isEqualTo(2 * eq.get("data_files").asLong() + eq.get("delete_files").asLong());
  }
}
