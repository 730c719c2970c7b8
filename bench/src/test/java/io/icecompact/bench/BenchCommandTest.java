package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench paths}, {@code e2e} and {@code scale} on tiny tables: the report's rows and what
 * they say, not the figures.
 */
class BenchCommandTest {
  @Test
  void reportsEachPathOnTheSameGroupsWithTheMedianOfItsRounds(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "paths",
            "--warehouse",
            dir.toString(),
            "--files",
            "12",
            "--partitions",
            "2",
            "--rows-per-file",
            "200",
            "--delete-files",
            "2",
            "--equality-deletes",
            "20",
            "--shapes",
            "deletes,scattered-deletes",
            "--threads",
            "1",
            "--warmups",
            "0",
            "--rounds",
            "2");

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> rows =
        run.out()
            .lines()
            .filter(line -> line.startsWith("| deletes") || line.startsWith("| scattered"))
            .toList();
    assertThat(rows).hasSize(4);
    assertThat(rows)
        .filteredOn(row -> row.contains("| generic |"))
        .hasSize(2)
        .allSatisfy(row -> assertThat(row).contains("generic 2 (generic path requested)"));
    assertThat(rows)
        .filteredOn(row -> row.contains("| auto |"))
        .hasSize(2)
        .allSatisfy(row -> assertThat(row).contains("columnar 2 ("));
    assertThat(run.out())
        .contains("2 files with position deletes")
        .contains("0 warm-up run(s), then the median of 2 run(s)");
  }

  /** A sort heap too small for a group: the sort row counts the runs spilled to sort it. */
  @Test
  void aSortRowBeyondTheSortHeapSaysWhatWasSpilled(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "paths",
            "--warehouse",
            dir.toString(),
            "--files",
            "12",
            "--partitions",
            "2",
            "--rows-per-file",
            "200",
            "--delete-files",
            "2",
            "--equality-deletes",
            "20",
            "--shapes",
            "deletes",
            "--paths",
            "GENERIC",
            "--threads",
            "1",
            "--warmups",
            "0",
            "--rounds",
            "1",
            "--sort-orders",
            "customer_id",
            "--sort-heap-bytes",
            "400000");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(
            run.out()
                .lines()
                .filter(line -> line.startsWith("| deletes, sort customer_id (sort heap 0 MB)")))
        .singleElement()
        .satisfies(
            row -> assertThat(row).containsPattern("; spilled \\d+ runs, \\d+\\.\\d MB \\|$"));
  }

  @Test
  void endToEndRunsTheWholeJobPerPathInThisJvmAndAFreshOneAndKeepsTheLiveRows(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "e2e",
            "--warehouse",
            dir.toString(),
            "--sizes",
            "2x5x200",
            "--format-versions",
            "2,3",
            "--threads",
            "1",
            "--warmups",
            "0");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "2x5x200 v2 (Spark 3.5 layout, 2 day partitions x 5 files x 200 rows): 10 data files")
        .contains("10 position delete files deleting 20 rows; live: 1,980 rows")
        .contains("2x5x200 v3 (Spark 3.5 layout")
        .contains("10 deletion vectors deleting 20 rows; live: 1,980 rows");
    List<String> rows = run.out().lines().filter(line -> line.startsWith("| 2x5x200 ")).toList();
    // v2 and v3, generic and auto, this JVM and a fresh one
    assertThat(rows).hasSize(8);
    assertThat(rows)
        .allSatisfy(row -> assertThat(row).contains("| committed | same 1,980 rows, checksum "))
        .filteredOn(row -> row.contains("| generic |"))
        .hasSize(4)
        .allSatisfy(row -> assertThat(row).contains("generic 2 (generic path requested)"));
    assertThat(rows).filteredOn(row -> row.contains("| fresh JVM |")).hasSize(4);
  }

  /**
   * {@code bench e2e} on the small Flink upsert table: the table line describes its files; both
   * paths run in this JVM and in a fresh one, which reports its CPU seconds and peak RSS; the live
   * rows are kept.
   */
  @Test
  void endToEndOnAFlinkUpsertTablePrintsCpuAndPeakRssOfTheFreshProcess(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "e2e",
            "--warehouse",
            dir.toString(),
            "--sizes",
            "upsert-s",
            "--format-versions",
            "2",
            "--threads",
            "1",
            "--warmups",
            "0");

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out())
        .containsPattern(
            "upsert-s v2 \\(Flink 1\\.20 upsert sink: 12 checkpoints x 2 writers into bucket\\(4, id\\),"
                + " 200 changes per writer and checkpoint, id key; generated in [0-9.]+ s\\): 96 data files, [0-9.]+ MB,"
                + " 4,[0-9]{3} rows; [1-9][0-9] equality delete files of [0-9,]+ keys; [1-9][0-9] position delete files of"
                + " [0-9,]+ positions; live: [0-9,]+ rows");
    List<String> header = cells(row(run.out(), "| size |"));
    assertThat(header.subList(7, 10)).containsExactly("total s", "CPU s", "peak RSS MB");
    List<String> rows = run.out().lines().filter(line -> line.startsWith("| upsert-s ")).toList();
    // generic and auto, this JVM and a fresh one
    assertThat(rows).hasSize(4);
    assertThat(rows).allSatisfy(row -> assertThat(cells(row).get(13)).isEqualTo("committed"));
    assertThat(rows).allSatisfy(row -> assertThat(cells(row).get(14)).startsWith("same "));
    assertThat(rows)
        .filteredOn(row -> row.contains("| fresh JVM |"))
        .hasSize(2)
        .allSatisfy(
            row -> {
              List<String> cells = cells(row);
              double total = Double.parseDouble(cells.get(7));
              double cpu = Double.parseDouble(cells.get(8));
              // a JVM's start alone takes a fraction of a CPU second; two cores bound it from above
              assertThat(cpu)
                  .isGreaterThan(0.2)
                  .isLessThan(total * Runtime.getRuntime().availableProcessors() + 1);
              // a JVM that loaded Iceberg and Parquet: tens of MB at least
              assertThat(Double.parseDouble(cells.get(9))).isGreaterThan(30);
            });
    assertThat(rows)
        .filteredOn(row -> row.contains("| warm JVM |"))
        .hasSize(2)
        .allSatisfy(
            row -> {
              assertThat(Double.parseDouble(cells(row).get(8))).isPositive();
              assertThat(cells(row).get(9)).isEqualTo("-");
            });
  }

  @Test
  void endToEndSaysSoWhenTheTableHasNothingToRewrite(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "e2e",
            "--warehouse",
            dir.toString(),
            "--sizes",
            "2x3x200",
            "--format-versions",
            "2",
            "--processes",
            "warm",
            "--warmups",
            "0");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("give it at least 5 files per day");
  }

  @Test
  void saysSoWhenTheGeneratedTableHasNothingToRewrite(@TempDir Path dir) {
    // two files per partition: under the planner's min-input-files
    BenchRun run =
        BenchRun.of(
            "paths",
            "--warehouse",
            dir.toString(),
            "--files",
            "4",
            "--partitions",
            "2",
            "--rows-per-file",
            "50",
            "--shapes",
            "no-deletes",
            "--rounds",
            "1",
            "--warmups",
            "0");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("Nothing to rewrite in the generated 'no-deletes' table");
  }

  /**
   * {@code bench scale} on a tiny table: the figures are there and agree with the table's metadata
   * (2,000 files in 20 days of 100: 20 groups, all replaced by the commit). Nothing is timed.
   */
  @Test
  void scalePlansAndCommitsAMetadataOnlyTableInFreshJvms(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "scale", "--warehouse", dir.toString(), "--files", "2000", "--scale-heap", "512m");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("2,000-file table (v2, metadata only): 2,000 data files in ")
        .contains("20 day partitions, built by 1 fast append(s)")
        .contains("Each step ran in a fresh JVM (-Xmx512m)");
    String plannerRow = row(run.out(), "| 2,000 | 20 | ");
    // groups (skipped), files per group
    assertThat(plannerRow)
        .contains("| 20 (0) | 100 | ")
        .doesNotContain("failed")
        .doesNotContain("nothing to do");
    List<String> cells = cells(plannerRow);
    // heap after GC and the pools' peaks, RSS; the plan index, the group documents, a group's
    // manifests
    // (small here: cross-checked), a worker's read (the index, its document and those manifests)
    assertThat(cells.get(3)).matches("[0-9.]+ (KB|MB)|\\(no GC\\)");
    assertThat(cells.subList(4, 6)).allSatisfy(cell -> assertThat(cell).matches("[0-9.]+ MB"));
    assertThat(cells.get(8)).matches("[0-9.]+ KB");
    assertThat(cells.get(9)).matches("[0-9.]+ KB / [0-9.]+ KB");
    assertThat(cells.get(10)).matches("[0-9.]+ KB \\(cross-checked\\)");
    assertThat(cells.get(11)).matches("[0-9.]+ KB");
    assertThat(kilobytes(cells.get(11)))
        .isEqualTo(
            kilobytes(cells.get(8))
                + kilobytes(cells.get(9).split(" / ")[0])
                + kilobytes(cells.get(10)),
            org.assertj.core.data.Offset.offset(0.2));
    String committerRow = row(run.out(), "| 2,000 | 20 | ", 1);
    assertThat(committerRow)
        .contains("| committed, verified | replace: 2,000 files replaced, 20 added, 20 live |");
  }

  /**
   * {@code bench memory}: the whole table one group, rewritten on one thread, once per path; the
   * footer says so.
   */
  @Test
  void memoryRewritesTheWholeTableAsOneGroupOnOneThread(@TempDir Path dir) {
    BenchRun run =
        BenchRun.of(
            "memory",
            "--warehouse",
            dir.toString(),
            "--files",
            "6",
            "--rows-per-file",
            "200",
            "--delete-files",
            "2",
            "--equality-deletes",
            "20",
            "--warmups",
            "0",
            "--rounds",
            "1");

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> rows = run.out().lines().filter(line -> line.startsWith("| deletes")).toList();
    // GENERIC and AUTO, one thread each, one group each
    assertThat(rows).hasSize(2);
    assertThat(rows)
        .filteredOn(row -> row.contains("| generic |"))
        .singleElement()
        .satisfies(row -> assertThat(row).contains("generic 1 (generic path requested)"));
    assertThat(run.out())
        .contains("memory mode: the whole table is one group, rewritten on one thread");
  }

  /** Each mode's help lists its own flags and not another mode's; the bench's lists the modes. */
  @Test
  void eachModeHasOnlyItsOwnFlags() {
    BenchRun commitRace = BenchRun.of("commit-race", "--help");
    assertThat(commitRace.exitCode()).isZero();
    assertThat(commitRace.out())
        .contains("Usage: icecompact bench commit-race")
        .contains("--writer-every-ms", "--race-table", "--catalogs", "--rounds", "--warehouse")
        .doesNotContain("--shapes")
        .doesNotContain("--sizes")
        .doesNotContain("--files");
    BenchRun paths = BenchRun.of("paths", "--help");
    assertThat(paths.out())
        .contains("--shapes", "--sort-orders", "--files", "--threads")
        .doesNotContain("--sizes")
        .doesNotContain("--writer-every-ms");
    assertThat(BenchRun.of("--help").out())
        .contains("paths", "memory", "e2e", "scale", "skipping", "commit-race", "convert");
  }

  private static double kilobytes(String cell) {
    return Double.parseDouble(cell.substring(0, cell.indexOf(" KB")));
  }

  private static String row(String out, String start) {
    return row(out, start, 0);
  }

  private static String row(String out, String start, int nth) {
    List<String> rows = out.lines().filter(line -> line.startsWith(start)).toList();
    assertThat(rows).as(out).hasSizeGreaterThan(nth);
    return rows.get(nth);
  }

  private static List<String> cells(String row) {
    return List.of(row.substring(1, row.length() - 1).split("\\|")).stream()
        .map(String::trim)
        .toList();
  }
}
