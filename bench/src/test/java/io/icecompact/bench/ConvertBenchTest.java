package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench convert} on the small table: both contenders and the three scans run in fresh JVMs,
 * the report has their rows and the targets, and the live rows agree after each.
 */
class ConvertBenchTest {
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void convertRunsBothContendersAndTheScansAndKeepsTheLiveRows(int version, @TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "convert",
            "--size",
            "s",
            "--format-version",
            Integer.toString(version),
            "--runs",
            "1",
            "--warehouse",
            dir.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("bench convert: format version " + version)
        .contains("| rewrite | ", "| convert | ")
        .contains("| before | ", "| after rewrite | ", "| after convert | ")
        .contains("| before | ", "| after rewrite | ", "| after convert | ")
        .contains("Full scan with Spark 4.1.1 with Iceberg 1.12.0")
        .contains("Spark scan after convert / Spark scan after rewrite")
        .contains("after convert, read by Spark: same: ")
        .contains("convert bytes read / rewrite bytes read")
        .contains("convert CPU / rewrite CPU")
        .contains("the jobs alone")
        .contains("scan after convert / scan after rewrite")
        .contains("live rows: identical before, after rewrite and after convert")
        .doesNotContain("CHANGED");
    // the conversion leaves only equality deletes that apply to no data file, as the rewrite does
    assertThat(column(run.out(), "| convert | ", 14))
        .as(run.out())
        .isEqualTo(column(run.out(), "| rewrite | ", 14));
    assertThat(run.out()).contains("  compacted once: 4 data files").contains(", kept 0;");
    // each job again after a warm-up on a registered copy: it succeeded and kept the live rows
    assertThat(column(run.out(), "| rewrite (warm JVM) | ", 6)).isEqualTo("COMMITTED");
    assertThat(column(run.out(), "| convert (warm JVM) | ", 6)).isEqualTo("COMMITTED");
    assertThat(run.out())
        .contains("the jobs in a warm JVM")
        .contains("after convert in a warm JVM: same ");
    assertThat(run.systemOut()).isEmpty();
  }

  private static String column(String out, String rowStart, int column) {
    String row = out.lines().filter(line -> line.startsWith(rowStart)).findFirst().orElseThrow();
    return row.split("\\|")[column].trim();
  }
}
