package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench convert} on the small table: the three contenders and the four scans run in fresh
 * JVMs, the report has their rows and the targets, and the live rows agree after each.
 */
class ConvertBenchTest {
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void convertRunsTheContendersAndTheScansAndKeepsTheLiveRows(int version, @TempDir Path dir) {
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
        .contains(
            "live rows: identical before, after rewrite, after convert and after compact small"
                + " + convert")
        .contains("after compact small + convert, read by Spark: same: ")
        .doesNotContain("CHANGED");
    // the conversion leaves only equality deletes that apply to no data file, as the rewrite does
    assertThat(column(run.out(), "| convert | ", 14))
        .as(run.out())
        .isEqualTo(column(run.out(), "| rewrite | ", 14));
    assertThat(run.out()).contains("  compacted once: 4 data files").contains(", kept 0;");
    // the small files compacted, then the equality deletes converted: both jobs committed, the
    // conversion touched only the 4 big files, and the table reads as after the whole rewrite
    // but for those 4 files' position deletes
    assertThat(column(run.out(), "| compact small + convert | ", 16))
        .isEqualTo("COMMITTED + COMMITTED");
    assertThat(column(run.out(), "| compact small + convert | ", 14))
        .isEqualTo(column(run.out(), "| rewrite | ", 14));
    assertThat(column(run.out(), "| compact small + convert | ", 15))
        .isEqualTo(version == 2 ? "4 / 0" : "0 / 4");
    assertThat(run.out())
        .contains("data files converted 4;")
        .contains("| after compact small + convert | ")
        .contains("Issue 27's targets for compact small + convert");
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
