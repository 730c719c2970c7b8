package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.cli.IcecompactCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad flag of every bench mode, and a flag of another mode: exit 2 (usage error),
 * stderr's first line names the flag and the problem, nothing on stdout, and the warehouse was
 * never created.
 */
class BenchBadFlagsTest {
  /** In a case's arguments: a directory that must still not exist after the run. */
  static final String NEW_DIR = "<new-dir>";

  static Stream<Arguments> badFlags() {
    return Stream.of(
        // paths
        mode(
            "paths",
            "Invalid value for option '--warmups': must be at least 0, got -1",
            "--warmups",
            "-1"),
        mode(
            "paths",
            "Invalid value for option '--rounds': must be at least 1, got 0",
            "--rounds",
            "0"),
        mode(
            "paths",
            "Invalid value for option '--threads' (<threads>): must be at least 1, got 0",
            "--threads",
            "0"),
        // picocli names an option by its longest name: --workers is --threads
        mode(
            "paths",
            "Invalid value for option '--threads' (<threads>): must be at least 1, got 0",
            "--workers",
            "1,0"),
        mode(
            "paths",
            "Invalid value for option '--threads' (<threads>): '' is not a whole number",
            "--threads",
            "1,,2"),
        mode(
            "paths",
            "Invalid value for option '--column-threads' (<columnThreads>): must be at least 1, got 0",
            "--column-threads",
            "0"),
        mode(
            "paths",
            "Invalid value for option '--files': must be at least 1, got 0",
            "--files",
            "0"),
        // one table size: a list is scale's
        mode(
            "paths",
            "Invalid value for option '--files': '100,200' is not a whole number",
            "--files",
            "100,200"),
        mode(
            "paths",
            "Invalid value for option '--partitions': must be at least 1, got -1",
            "--partitions",
            "-1"),
        mode(
            "paths",
            "Invalid value for option '--rows-per-file': must be at least 1, got 0",
            "--rows-per-file",
            "0"),
        mode(
            "paths",
            "Invalid value for option '--delete-files': must be at least 0, got -1",
            "--delete-files",
            "-1"),
        mode(
            "paths",
            "Invalid value for option '--equality-deletes': must be at least 0, got -5",
            "--equality-deletes",
            "-5"),
        mode(
            "paths",
            "Invalid value for option '--format-version': must be 2 or 3, got '1'",
            "--format-version",
            "1"),
        mode(
            "paths",
            "Invalid value for option '--paths' (<paths>): expected one of [AUTO, GENERIC] (case-sensitive) but was"
                + " 'FAST'",
            "--paths",
            "FAST"),
        mode(
            "paths",
            "Invalid value for option '--shapes' (<shapes>): 'sparse' is not one of deletes, scattered-deletes,"
                + " no-deletes",
            "--shapes",
            "deletes,sparse"),
        mode(
            "paths",
            "Invalid value for option '--prefetch' (<prefetch>): 'maybe' is not one of on, off",
            "--prefetch",
            "maybe"),
        mode(
            "paths",
            "Invalid value for option '--latency-ms': must be at least 0, got -1",
            "--latency-ms",
            "-1"),
        mode(
            "paths",
            "Invalid value for option '--latency-ms': 'ten' is not a whole number",
            "--latency-ms",
            "ten"),
        mode("paths", "Unknown option: '--json'", "--json"),
        // memory: the rewrite options, not the table's layout
        mode(
            "memory",
            "Invalid value for option '--rows-per-file': must be at least 1, got 0",
            "--rows-per-file",
            "0"),
        mode("memory", "Unknown options: '--shapes', 'deletes'", "--shapes", "deletes"),
        mode("memory", "Unknown options: '--threads', '2'", "--threads", "2"),
        // e2e
        mode(
            "e2e",
            "Invalid value for option '--sizes' (<sizes>): Unknown size 'L': use S, M, DAYSxFILESxROWS (at least"
                + " 1x1x100) or a CDC size: upsert, upsert-10x, changelog, upsert-s, changelog-s",
            "--sizes",
            "L"),
        mode(
            "e2e",
            "Invalid value for option '--sizes' (<sizes>): Unknown size '1x1x10': use S, M, DAYSxFILESxROWS (at"
                + " least 1x1x100) or a CDC size: upsert, upsert-10x, changelog, upsert-s, changelog-s",
            "--sizes",
            "S,1x1x10"),
        mode(
            "e2e",
            "Invalid value for option '--sizes' (<sizes>): Unknown size 'upsert-xl': use S, M, DAYSxFILESxROWS (at"
                + " least 1x1x100) or a CDC size: upsert, upsert-10x, changelog, upsert-s, changelog-s",
            "--sizes",
            "upsert,upsert-xl"),
        mode(
            "e2e",
            "Invalid value for option '--format-versions' (<formatVersions>): must be 2 or 3, got '4'",
            "--format-versions",
            "2,4"),
        mode(
            "e2e",
            "Invalid value for option '--processes' (<processes>): 'cold' is not one of warm, fresh",
            "--processes",
            "cold"),
        mode(
            "e2e",
            "Invalid value for option '--codec': 'gzip' is not one of zstd, snappy",
            "--codec",
            "gzip"),
        mode("e2e", "Unknown options: '--rounds', '2'", "--rounds", "2"),
        // scale
        mode(
            "scale",
            "Invalid value for option '--scale-heap': '3x' is not a heap size such as 3g, 512m or 3221225472",
            "--scale-heap",
            "3x"),
        mode(
            "scale",
            "Invalid value for option '--files' (<files>): must be at least 1, got 0",
            "--files",
            "1000,0"),
        mode("scale", "Unknown options: '--paths', 'AUTO'", "--paths", "AUTO"),
        // skipping takes only --warehouse
        mode("skipping", "Unknown options: '--rounds', '1'", "--rounds", "1"),
        // commit-race
        mode(
            "commit-race",
            "Invalid value for option '--writer-every-ms' (<writerEveryMillis>): must be at least 1, got 0",
            "--writer-every-ms",
            "0"),
        mode(
            "commit-race",
            "Invalid value for option '--race-table': a CDC table size (upsert, upsert-s, ...), got S",
            "--race-table",
            "S"),
        mode(
            "commit-race",
            "Invalid value for option '--catalogs': jdbc or hadoop, got glue",
            "--catalogs",
            "glue"),
        mode("commit-race", "Unknown options: '--sizes', 'S'", "--sizes", "S"),
        // no mode, or a mode given as the flag it was before it was a subcommand
        named(
            "Missing a mode: one of paths, memory, e2e, scale, skipping, commit-race, convert",
            List.of()),
        named("Unknown option: '--e2e'", List.of("--e2e")),
        named("Unmatched argument at index 0: 'fast'", List.of("fast")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFlags")
  void exitsTwoNamingTheFlagAndBuildsNothing(
      String name, List<String> args, String expected, @TempDir Path temp) throws Exception {
    Path newDir = temp.resolve("never-created");
    List<String> expanded =
        args.stream().map(arg -> arg.equals(NEW_DIR) ? newDir.toString() : arg).toList();

    BenchRun run = BenchRun.of(expanded);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    assertThat(run.err().lines().findFirst().orElse("")).isEqualTo("error: " + expected);
    assertThat(run.out()).isEmpty();
    assertThat(run.systemOut()).isEmpty();
    assertThat(newDir).doesNotExist();
  }

  /** A rejected flag says how to see the mode's own flags, in place of the whole usage text. */
  @Test
  void aRejectedFlagPointsToTheModesHelp() {
    BenchRun run = BenchRun.of("commit-race", "--writer-every-ms", "0");

    assertThat(run.err().lines().toList())
        .containsExactly(
            "error: Invalid value for option '--writer-every-ms' (<writerEveryMillis>): must be at"
                + " least 1, got 0",
            "Run 'icecompact bench commit-race --help' for its flags.");
  }

  private static Arguments mode(String mode, String expected, String... more) {
    List<String> args = new ArrayList<>(List.of(mode, "--warehouse", NEW_DIR));
    args.addAll(List.of(more));
    return named(expected, args);
  }

  private static Arguments named(String expected, List<String> args) {
    return Arguments.of(args.isEmpty() ? "(no mode)" : String.join(" ", args), args, expected);
  }
}
