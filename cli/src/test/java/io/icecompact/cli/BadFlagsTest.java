package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad flag of every command: exit 2 (usage error), stderr's first line names the flag
 * and the problem, and nothing was written: compact leaves the table's snapshot, rows and files as
 * they were; demo never creates its warehouse. (The bench's bad flags: the bench module's
 * BenchBadFlagsTest.)
 */
class BadFlagsTest {
  static final String TABLE = "db.orders";

  /**
   * In a case's arguments: the local warehouse's catalog flags ({@code -c type=jdbc -c uri=...}).
   */
  static final String CATALOG = "<catalog>";

  /** In a case's arguments: a directory that must still not exist after the run. */
  static final String NEW_DIR = "<new-dir>";

  /**
   * In an expected message: what follows is only the message's start (the rest names a class path).
   */
  static final String PREFIX = "<prefix>";

  @TempDir static Path warehouse;
  static TestTables.State before;

  @BeforeAll
  static void createTable() {
    TestTables.create(warehouse, TABLE, TestTables.SMALL);
    before = TestTables.State.of(warehouse, TABLE);
  }

  static Stream<Arguments> badFlags() {
    String valid = String.join(", ", RewriteOptions.validOptionNames());
    String jobId =
        "is not a job id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";
    return Stream.of(
        // compact: --workers
        compact(
            "Invalid value for option '--workers': must be at least 1, got 0", "--workers", "0"),
        compact(
            "Invalid value for option '--workers': must be at least 1, got -3", "--workers", "-3"),
        compact(
            "Invalid value for option '--workers': 'two' is not a whole number",
            "--workers",
            "two"),
        compact(
            "Invalid value for option '--workers': must be at most 2147483647, got 99999999999",
            "--workers",
            "99999999999"),
        compact("Missing required parameter for option '--workers' (N)", "--workers"),
        // compact: --job-id
        compact("Invalid value for option '--job-id': 'a/b' " + jobId, "--job-id", "a/b"),
        compact("Invalid value for option '--job-id': '' " + jobId, "--job-id", ""),
        compact("Invalid value for option '--job-id': '-x' " + jobId, "--job-id", "-x"),
        compact(
            "Invalid value for option '--job-id': '" + "j".repeat(65) + "' " + jobId,
            "--job-id",
            "j".repeat(65)),
        // compact: -c
        compact(
            "Invalid value for option '--catalog-property' (KEY=VALUE): 'warehouse' is not KEY=VALUE",
            "-c",
            "warehouse"),
        compact(
            "Invalid value for option '--catalog-property' (KEY=VALUE): '=jdbc' has no key before '='",
            "-c",
            "=jdbc"),
        compact(
            "Invalid value for option '--catalog-property' (KEY=VALUE): 'warehouse=' has no value after '='",
            "-c",
            "warehouse="),
        compact(
            "Invalid value for option '--catalog-property': 'type' is given twice, as 'jdbc' and as 'hadoop'",
            "-c",
            "type=hadoop"),
        bare(
            "Cannot create the catalog: UnsupportedOperationException: Unknown catalog type: mysql",
            "compact",
            "--table",
            TABLE,
            "-c",
            "type=mysql"),
        bare(
            "Catalog properties must set 'type' (glue, rest, jdbc, hadoop, hive, nessie) or 'catalog-impl'; got keys"
                + PREFIX,
            "compact",
            "--table",
            TABLE,
            "-c",
            "uri=jdbc:sqlite::memory:"),
        bare(
            "Cannot create the catalog: IllegalArgumentException: Cannot initialize Catalog implementation"
                + " com.example.NoSuchCatalog"
                + PREFIX,
            "compact",
            "--table",
            TABLE,
            "-c",
            "catalog-impl=com.example.NoSuchCatalog"),
        // DynamoDB is a catalog-impl, not a type
        bare(
            "Cannot create the catalog: UnsupportedOperationException: Unknown catalog type: dynamodb",
            "compact",
            "--table",
            TABLE,
            "-c",
            "type=dynamodb",
            "-c",
            "warehouse=s3://bucket/wh"),
        bare(
            "Cannot create the catalog: IllegalArgumentException: Cannot initialize Catalog implementation"
                + " org.apache.iceberg.gcp.bigquery.BigQueryMetastoreCatalog"
                + PREFIX,
            "compact",
            "--table",
            TABLE,
            "-c",
            "type=bigquery"),
        bare(
            "Catalog type 'hive' needs Iceberg's HiveCatalog" + PREFIX,
            "compact",
            "--table",
            TABLE,
            "-c",
            "type=hive",
            "-c",
            "uri=thrift://127.0.0.1:9083"),
        // compact: -o, its form
        compact(
            "Invalid value for option '--option' (KEY=VALUE): 'min-input-files' is not KEY=VALUE",
            "-o",
            "min-input-files"),
        compact(
            "Invalid value for option '--option' (KEY=VALUE): '=5' has no key before '='",
            "-o",
            "=5"),
        compact(
            "Invalid value for option '--option' (KEY=VALUE): 'min-input-files=' has no value after '='",
            "-o",
            "min-input-files="),
        compact(
            "Invalid value for option '--option': 'min-input-files' is given twice, as '2' and as '3'",
            "-o",
            "min-input-files=2",
            "-o",
            "min-input-files=3"),
        compact(
            "Unknown rewrite option 'min-input-file' (did you mean 'min-input-files'?). Valid options: "
                + valid,
            "-o",
            "min-input-file=2"),
        // compact: -o, each option's value
        compact(
            "'target-file-size-bytes' is set to 512MB but must be a whole number of bytes",
            "-o",
            "target-file-size-bytes=512MB"),
        rewriteOption(
            "target-file-size-bytes=0", "'target-file-size-bytes' is set to 0 but must be > 0"),
        rewriteOption(
            "target-file-size-bytes=-1", "'target-file-size-bytes' is set to -1 but must be > 0"),
        rewriteOption(
            "min-file-size-bytes=-5", "'min-file-size-bytes' is set to -5 but must be >= 0"),
        rewriteOption(
            "max-file-size-bytes=1",
            "'target-file-size-bytes' (536870912) must be < 'max-file-size-bytes' (1), all new files will be larger"
                + " than the max threshold"),
        rewriteOption("min-input-files=0", "'min-input-files' is set to 0 but must be > 0"),
        compact(
            "'min-input-files' is set to five but must be a whole number",
            "-o",
            "min-input-files=five"),
        rewriteOption(
            "max-file-group-size-bytes=0",
            "'max-file-group-size-bytes' is set to 0 but must be > 0"),
        rewriteOption(
            "max-file-group-input-files=0",
            "'max-file-group-input-files' is set to 0 but must be > 0"),
        rewriteOption(
            "max-files-to-rewrite=0",
            "Cannot set max-files-to-rewrite to 0, the value must be positive integer."),
        rewriteOption(
            "delete-file-threshold=-1", "'delete-file-threshold' is set to -1 but must be >= 0"),
        rewriteOption(
            "delete-ratio-threshold=2", "'delete-ratio-threshold' is set to 2.0 but must be <= 1"),
        compact(
            "'delete-ratio-threshold' is set to half but must be a number from 0 to 1",
            "-o",
            "delete-ratio-threshold=half"),
        rewriteOption("rewrite-job-order=biggest", "Invalid rewrite job order name: biggest"),
        compact("'rewrite-all' is set to yes but must be true or false", "-o", "rewrite-all=yes"),
        rewriteOption(
            "output-spec-id=99",
            "Cannot use output spec id 99 because the table does not contain a reference to this spec-id."),
        compact(
            "'partial-progress.max-commits' is set to 0 but must be > 0",
            "-o",
            "partial-progress.max-commits=0"),
        compact(
            "'partial-progress.enabled' is set to maybe but must be true or false",
            "-o",
            "partial-progress.enabled=maybe"),
        compact("'max-groups-per-job' is set to -3 but must be > 0", "-o", "max-groups-per-job=-3"),
        compact(
            "'allow-partial' is set to sometimes but must be true or false",
            "-o",
            "allow-partial=sometimes"),
        compact(
            "'use-starting-sequence-number' is set to no but must be true or false",
            "-o",
            "use-starting-sequence-number=no"),
        // compact: filters, table, unknown and repeated flags
        compact(
            "Malformed filter \"region = 'eu\": unterminated quote at position 9",
            "--where",
            "region = 'eu"),
        compact(
            "Malformed filter \"colour = 'red'\": unknown column 'colour'",
            "--where",
            "colour = 'red'"),
        compact(
            "Give either 'filter' (Iceberg JSON) or 'where', not both",
            "--where",
            "region = 'eu'",
            "--filter-json",
            "{\"type\":\"true\"}"),
        compact("Malformed filter JSON {bad" + PREFIX, "--filter-json", "{bad"),
        bare("Table not found: db.nope", "compact", "--table", "db.nope", CATALOG),
        bare(
            "Table identifier is missing (e.g. 'analytics.orders')",
            "compact",
            "--table",
            "",
            CATALOG),
        bare("Missing required option: '--table=NS.TABLE'", "compact", CATALOG),
        compact("option '--table' (NS.TABLE) should be specified only once", "--table", "db.other"),
        compact("Unknown option: '--frobnicate'", "--frobnicate"),
        compact(
            "Invalid value for option '--rewrite-path': expected one of [AUTO, GENERIC] (case-sensitive) but was"
                + " 'FAST'",
            "--rewrite-path",
            "FAST"),
        // plan shares compact's job flags, and has no --workers
        bare(
            "Unknown options: '--workers', '2'",
            "plan",
            "--table",
            TABLE,
            CATALOG,
            "--workers",
            "2"),
        bare(
            "Invalid value for option '--catalog-property' (KEY=VALUE): 'warehouse' is not KEY=VALUE",
            "plan",
            "--table",
            TABLE,
            "-c",
            "warehouse"),
        bare(
            "'min-input-files' is set to five but must be a whole number",
            "plan",
            "--table",
            TABLE,
            CATALOG,
            "-o",
            "min-input-files=five"),
        bare(
            "Invalid value for option '--job-id': 'a b' " + jobId,
            "plan",
            "--table",
            TABLE,
            CATALOG,
            "--job-id",
            "a b"),
        // sweep
        bare("Missing required option: '--namespace=NS'", "sweep", CATALOG),
        bare("Namespace not found: nope", "sweep", CATALOG, "--namespace", "nope"),
        bare(
            "Invalid value for option '--max-tables': must be at least 1, got 0",
            "sweep",
            CATALOG,
            "--namespace",
            "db",
            "--max-tables",
            "0"),
        bare(
            "Invalid value for option '--workers': 'x' is not a whole number",
            "sweep",
            CATALOG,
            "--namespace",
            "db",
            "--workers",
            "x"),
        // health
        bare("Missing required option: '--namespace=NS'", "health", CATALOG),
        bare("Namespace not found: nope", "health", CATALOG, "--namespace", "nope"),
        bare("Namespace is missing (e.g. 'analytics')", "health", CATALOG, "--namespace", ""),
        bare(
            "Invalid value for option '--catalog-property' (KEY=VALUE): 'warehouse' is not KEY=VALUE",
            "health",
            "--namespace",
            "db",
            "-c",
            "warehouse"),
        bare(
            "Unknown options: '--table', '" + TABLE + "'",
            "health",
            CATALOG,
            "--namespace",
            "db",
            "--table",
            TABLE),
        // history and status
        bare(
            "Give --lease-table NAME (the deployed job log) or the catalog with -c (the jobs' work locations)",
            "history",
            "--table",
            TABLE),
        bare("Missing required option: '--table=NS.TABLE'", "history", CATALOG),
        bare(
            "Invalid value for option '--limit': must be at least 1, got 0",
            "history",
            "--table",
            TABLE,
            CATALOG,
            "--limit",
            "0"),
        bare(
            "--dynamodb-endpoint needs --lease-table",
            "history",
            "--table",
            TABLE,
            CATALOG,
            "--dynamodb-endpoint",
            "http://127.0.0.1:1"),
        bare(
            "--work-location reads the jobs' work locations; the job log (--lease-table) names each job's result",
            "history",
            "--table",
            TABLE,
            "--lease-table",
            "leases",
            "--work-location",
            "file:/tmp/work"),
        bare(
            "Invalid value for option '--lease-table': a DynamoDB table name is needed",
            "history",
            "--table",
            TABLE,
            "--lease-table",
            " "),
        bare("Missing required option: '--job-id=ID'", "status", "--table", TABLE, CATALOG),
        bare(
            "Invalid value for option '--job-id': 'a/b' " + jobId,
            "status",
            "--table",
            TABLE,
            CATALOG,
            "--job-id",
            "a/b"),
        bare(
            "Give --lease-table NAME (the deployed job log) or the catalog with -c (the jobs' work locations)",
            "status",
            "--table",
            TABLE,
            "--job-id",
            "job-1"),
        // recommit
        bare("Missing required option: '--job-id=ID'", "recommit", "--table", TABLE, CATALOG),
        bare(
            "Missing required option: '--table=NS.TABLE'",
            "recommit",
            "--job-id",
            "job-1",
            CATALOG),
        bare(
            "Invalid value for option '--job-id': 'a/b' " + jobId,
            "recommit",
            "--table",
            TABLE,
            CATALOG,
            "--job-id",
            "a/b"),
        // demo
        bare(
            "Invalid value for option '--workers': must be at least 1, got 0",
            "demo",
            "--warehouse",
            NEW_DIR,
            "--workers",
            "0"),
        bare(
            "Invalid value for option '--format-version': must be 2 or 3, got '1'",
            "demo",
            "--warehouse",
            NEW_DIR,
            "--format-version",
            "1"),
        bare(
            "Invalid value for option '--format-version': must be 2 or 3, got '4'",
            "demo",
            "--warehouse",
            NEW_DIR,
            "--format-version",
            "4"),
        bare(
            "Warehouse " + warehouse + " already has a catalog; give an empty or new directory",
            "demo",
            "--warehouse",
            warehouse.toString()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFlags")
  void exitsTwoNamingTheFlagAndWritesNothing(
      String name, List<String> args, String expected, @TempDir Path scratch) throws Exception {
    Path newDir = scratch.resolve("never-created");
    List<String> expanded = expand(args, newDir);

    CliRun run = CliRun.of(expanded);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(IcecompactCli.EXIT_BAD_INPUT);
    String firstLine = run.err().lines().findFirst().orElse("");
    if (expected.endsWith(PREFIX)) {
      assertThat(firstLine)
          .startsWith("error: " + expected.substring(0, expected.length() - PREFIX.length()));
    } else {
      assertThat(firstLine).isEqualTo("error: " + expected);
    }
    assertThat(run.out()).isEmpty();
    assertThat(run.systemOut()).isEmpty();
    assertThat(newDir).doesNotExist();
    assertThat(TestTables.State.of(warehouse, TABLE)).isEqualTo(before);
  }

  /**
   * A flag picocli rejects says how to see the command's flags, in place of the whole usage text.
   */
  @Test
  void aRejectedFlagPointsToTheCommandsHelp() {
    CliRun run =
        CliRun.of(expand(compactArgs(List.of("--workers", "0")), warehouse.resolve("unused")));

    assertThat(run.err().lines().toList())
        .containsExactly(
            "error: Invalid value for option '--workers': must be at least 1, got 0",
            "Run 'icecompact compact --help' for its flags.");
  }

  @Test
  void aMisspeltFlagGetsASuggestion() {
    CliRun run =
        CliRun.of(expand(compactArgs(List.of("--worker", "2")), warehouse.resolve("unused")));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("error: Unknown options: '--worker', '2'")
        .contains("--workers");
  }

  /** With --json, a rejected flag is one JSON error object on stdout, as any other error is. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("badFlagsWithJson")
  void withJsonARejectedFlagIsAJsonErrorOnStdout(
      String name, List<String> args, String type, String message) throws Exception {
    CliRun run = CliRun.of(expand(args, warehouse.resolve("unused")));

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    JsonNode error =
        JobJson.mapper()
            .readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .readValue(run.out());
    assertThat(error.get("status").asText()).isEqualTo("ERROR");
    assertThat(error.get("error_type").asText()).isEqualTo(type);
    assertThat(error.get("message").asText()).isEqualTo(message);
    assertThat(error.get("exit_code").asInt()).isEqualTo(2);
    assertThat(run.err().lines().findFirst()).contains("error: " + message);
    assertThat(run.systemOut()).isEmpty();
    assertThat(TestTables.State.of(warehouse, TABLE)).isEqualTo(before);
  }

  static Stream<Arguments> badFlagsWithJson() {
    return Stream.of(
        Arguments.of(
            "compact --workers 0 --json",
            compactArgs(List.of("--workers", "0", "--json")),
            "picocli.CommandLine$ParameterException",
            "Invalid value for option '--workers': must be at least 1, got 0"),
        Arguments.of(
            "compact --json -c warehouse",
            compactArgs(List.of("--json", "-c", "warehouse")),
            "picocli.CommandLine$ParameterException",
            "Invalid value for option '--catalog-property' (KEY=VALUE): 'warehouse' is not KEY=VALUE"),
        Arguments.of(
            "compact --json --frobnicate",
            compactArgs(List.of("--json", "--frobnicate")),
            "picocli.CommandLine$UnmatchedArgumentException",
            "Unknown option: '--frobnicate'"),
        Arguments.of(
            "compact --json -o min-input-files=2 -o min-input-files=3",
            compactArgs(List.of("--json", "-o", "min-input-files=2", "-o", "min-input-files=3")),
            "picocli.CommandLine$ParameterException",
            "Invalid value for option '--option': 'min-input-files' is given twice, as '2' and as '3'"),
        Arguments.of(
            "plan --json --job-id a/b",
            List.of("plan", "--table", TABLE, CATALOG, "--json", "--job-id", "a/b"),
            "picocli.CommandLine$ParameterException",
            "Invalid value for option '--job-id': 'a/b' is not a job id: 1 to 64 letters, digits, '.', '_' or '-',"
                + " starting with a letter or digit"),
        Arguments.of(
            "demo --json --format-version 4",
            List.of("demo", "--json", "--warehouse", NEW_DIR, "--format-version", "4"),
            "picocli.CommandLine$ParameterException",
            "Invalid value for option '--format-version': must be 2 or 3, got '4'"));
  }

  private static Arguments compact(String expected, String... more) {
    return named(expected, compactArgs(List.of(more)));
  }

  private static Arguments rewriteOption(String option, String icebergMessage) {
    return named(
        "Invalid rewrite option: " + icebergMessage + " (options given: {" + option + "})",
        compactArgs(List.of("-o", option)));
  }

  private static Arguments bare(String expected, String... args) {
    return named(expected, List.of(args));
  }

  private static Arguments named(String expected, List<String> args) {
    return Arguments.of(String.join(" ", args), args, expected);
  }

  private static List<String> compactArgs(List<String> more) {
    List<String> args = new ArrayList<>(List.of("compact", "--table", TABLE, CATALOG));
    args.addAll(more);
    return args;
  }

  private static List<String> expand(List<String> args, Path newDir) {
    List<String> expanded = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals(CATALOG)) {
        expanded.addAll(TestTables.catalogArgs(warehouse));
      } else {
        expanded.add(arg.equals(NEW_DIR) ? newDir.toString() : arg);
      }
    }
    return expanded;
  }
}
