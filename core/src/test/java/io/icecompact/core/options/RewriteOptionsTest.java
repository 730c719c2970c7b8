package io.icecompact.core.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RewriteOptionsTest {

  @Test
  void unknownOptionFarFromEveryNameGetsNoSuggestion() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("compression-codec", "zstd")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Unknown rewrite option 'compression-codec'. Valid options: "
                + String.join(", ", RewriteOptions.validOptionNames()));
  }

  @Test
  void unknownOptionIsRejectedNamingTheKeyAndListingValidOptions() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("min-input-file", "5")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Unknown rewrite option 'min-input-file' (did you mean 'min-input-files'?). Valid options: "
                + String.join(", ", RewriteOptions.validOptionNames()));
    // the list really names the options, among them the one the user meant
    assertThat(RewriteOptions.validOptionNames())
        .contains(
            "min-input-files",
            "target-file-size-bytes",
            "partial-progress.max-commits",
            "allow-partial",
            "max-groups-per-job");
  }

  /**
   * Iceberg would fail on "512MB" with only "For input string", and read rewrite-all=yes as false.
   */
  @Test
  void icebergOptionsOfTheWrongFormAreRejectedNamingTheOption() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("target-file-size-bytes", "512MB")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'target-file-size-bytes' is set to 512MB but must be a whole number of bytes");
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("min-input-files", "five")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'min-input-files' is set to five but must be a whole number");
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("rewrite-all", "yes")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'rewrite-all' is set to yes but must be true or false");
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("delete-ratio-threshold", "half")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'delete-ratio-threshold' is set to half but must be a number from 0 to 1");
    assertThat(
            RewriteOptions.parse(Map.of("rewrite-all", "true", "target-file-size-bytes", "1048576"))
                .asMap())
        .hasSize(2);
  }

  @Test
  void zeroMaxCommitsNamesOptionValueAndRule() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("partial-progress.max-commits", "0")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'partial-progress.max-commits' is set to 0 but must be > 0");
  }

  @Test
  void negativeMaxGroupsNamesOptionValueAndRule() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("max-groups-per-job", "-3")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'max-groups-per-job' is set to -3 but must be > 0");
  }

  @Test
  void maxCommitsAboveTheStepFunctionsBoundNamesOptionCapAndWhy() {
    assertThat(
            RewriteOptions.parse(Map.of("partial-progress.max-commits", "1000"))
                .partialProgressMaxCommits())
        .isEqualTo(1000);
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("partial-progress.max-commits", "1001")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "'partial-progress.max-commits' is set to 1001 but must be at most 1000")
        .hasMessageContaining("Step Functions refuses a state payload over 256 KiB");
  }

  @Test
  void maxGroupsAboveTheStepFunctionsBoundNamesOptionCapAndWhy() {
    assertThat(RewriteOptions.parse(Map.of("max-groups-per-job", "10000")).maxGroupsPerJob())
        .isEqualTo(10_000);
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("max-groups-per-job", "10001")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("'max-groups-per-job' is set to 10001 but must be at most 10000")
        .hasMessageContaining("Step Functions refuses a state payload over 256 KiB");
  }

  @Test
  void nonBooleanAllowPartialNamesOptionValueAndRule() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("allow-partial", "maybe")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'allow-partial' is set to maybe but must be true or false");
  }

  @Test
  void nonIntegerMaxGroupsNamesOptionValueAndRule() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("max-groups-per-job", "abc")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'max-groups-per-job' is set to abc but must be an integer > 0");
  }

  @Test
  void blankValueIsRejected() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("min-input-files", " ")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Rewrite option 'min-input-files' has no value");
  }

  @Test
  void defaultsAndParsedValuesOfOwnOptions() {
    RewriteOptions defaults = RewriteOptions.parse(null);
    assertThat(defaults.partialProgressEnabled()).isFalse();
    assertThat(defaults.partialProgressMaxCommits()).isEqualTo(10);
    assertThat(defaults.useStartingSequenceNumber()).isTrue();
    assertThat(defaults.maxGroupsPerJob()).isEqualTo(1000);
    assertThat(defaults.allowPartial()).isTrue();
    assertThat(defaults.asMap()).isEmpty();

    RewriteOptions given =
        RewriteOptions.parse(
            Map.of(
                "partial-progress.enabled", "TRUE",
                "partial-progress.max-commits", "3",
                "use-starting-sequence-number", "false",
                "max-groups-per-job", "7",
                "allow-partial", "False"));
    assertThat(given.partialProgressEnabled()).isTrue();
    assertThat(given.partialProgressMaxCommits()).isEqualTo(3);
    assertThat(given.useStartingSequenceNumber()).isFalse();
    assertThat(given.maxGroupsPerJob()).isEqualTo(7);
    assertThat(given.allowPartial()).isFalse();
  }

  @Test
  void plannerOptionsDefaultTheGroupSizeToTwoGibAndCarryOnlyIcebergOptions() {
    RewriteOptions options =
        RewriteOptions.parse(Map.of("min-input-files", "3", "allow-partial", "false"));
    assertThat(options.plannerOptions())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("max-file-group-size-bytes", "2147483648", "min-input-files", "3"));
    assertThat(RewriteOptions.parse(Map.of()).plannerOptions())
        .containsExactlyInAnyOrderEntriesOf(Map.of("max-file-group-size-bytes", "2147483648"));
  }

  @Test
  void givenGroupSizeOverridesTheDefault() {
    RewriteOptions options = RewriteOptions.parse(Map.of("max-file-group-size-bytes", "1048576"));
    assertThat(options.plannerOptions())
        .containsExactlyInAnyOrderEntriesOf(Map.of("max-file-group-size-bytes", "1048576"));
  }

  /**
   * If Iceberg adds, renames or removes a planner option, this fails and RewriteOptions must
   * follow.
   */
  @Test
  void icebergPlannerOptionNamesMatchIcebergsPlanner() throws IOException {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("test", Map.of());
      catalog.createNamespace(Namespace.of("db"));
      Schema schema =
          new Schema(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "data", Types.StringType.get()));
      Table table =
          catalog.createTable(TableIdentifier.of("db", "t"), schema, PartitionSpec.unpartitioned());
      Set<String> expected = new HashSet<>(new BinPackRewriteFilePlanner(table).validOptions());
      expected.add("output-spec-id");
      assertThat(RewriteOptions.icebergPlannerOptionNames())
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @Test
  void validOptionNamesAreThePlannerOptionsPlusOurOwn() {
    Set<String> expected = new HashSet<>(RewriteOptions.icebergPlannerOptionNames());
    expected.addAll(
        Set.of(
            "partial-progress.enabled",
            "partial-progress.max-commits",
            "use-starting-sequence-number",
            "max-groups-per-job",
            "allow-partial",
            "strategy",
            "sort-order",
            "var-length-contribution",
            "max-output-size"));
    assertThat(RewriteOptions.validOptionNames())
        .containsExactlyElementsOf(new java.util.TreeSet<>(expected));
  }

  @Test
  void strategyIsBinpackUnlessASortOrderIsGiven() {
    assertThat(RewriteOptions.parse(Map.of()).strategy()).isEqualTo(RewriteStrategy.BINPACK);
    assertThat(RewriteOptions.parse(Map.of()).requestedSortOrder()).isEmpty();
    assertThat(RewriteOptions.parse(Map.of("sort-order", "id")).strategy())
        .isEqualTo(RewriteStrategy.SORT);
    assertThat(RewriteOptions.parse(Map.of("strategy", "SORT")).strategy())
        .isEqualTo(RewriteStrategy.SORT);
    assertThat(
            RewriteOptions.parse(Map.of("strategy", "sort", "sort-order", "zorder(a, b)"))
                .requestedSortOrder())
        .contains(new RequestedSortOrder.ZOrder(java.util.List.of("a", "b")));
  }

  @Test
  void unknownStrategyAndBinpackWithASortOrderAreRejected() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("strategy", "zorder")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'strategy' is set to zorder but must be binpack or sort");
    assertThatThrownBy(
            () -> RewriteOptions.parse(Map.of("strategy", "binpack", "sort-order", "id")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'sort-order' is set to id but 'strategy' is binpack, which keeps rows in input order:"
                + " set strategy=sort or leave 'strategy' out");
  }

  @Test
  void malformedSortOrderIsRejectedWhenOptionsAreParsed() {
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("sort-order", "id ASCENDING")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "'sort-order' is set to id ASCENDING but is not a sort order: expected ','"
                + " or the end but found 'ASCENDING' (at character 4)");
  }

  @Test
  void zOrderOptionsApplyToAZOrderOnly() {
    assertThat(
            RewriteOptions.parse(
                    Map.of("sort-order", "zorder(a, b)", "var-length-contribution", "4"))
                .varLengthContribution())
        .isEqualTo(4);
    assertThatThrownBy(
            () -> RewriteOptions.parse(Map.of("sort-order", "a", "max-output-size", "8")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'max-output-size' applies to a z-order only, but 'sort-order' is set to a");
    assertThatThrownBy(() -> RewriteOptions.parse(Map.of("var-length-contribution", "8")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'var-length-contribution' applies to a z-order only, but 'sort-order' is not set");
    assertThatThrownBy(
            () -> RewriteOptions.parse(Map.of("sort-order", "zorder(a)", "max-output-size", "0")))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'max-output-size' is set to 0 but must be > 0");
  }
}
