package io.icecompact.engine.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.TestTables;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input a user can get wrong is refused before anything is written, with a message that names it.
 */
class BadInputTest {
  static final String TABLE = "db.orders";

  @TempDir Path warehouse;
  String location;
  TestTables.State before;

  @BeforeEach
  void createTable() {
    location = TestTables.create(warehouse, TABLE, TestTables.SMALL);
    before = TestTables.State.of(warehouse, TABLE);
    // the fixture is what the assertions below rely on
    assertThat(before.snapshotId()).isNotNull();
    assertThat(TestTables.withTable(warehouse, TABLE, TestTables::liveDataFiles)).hasSize(15);
    assertThat(before.files().keySet()).noneMatch(f -> f.startsWith("_icecompact"));
  }

  JobResult run(Map<String, String> options, String filterJson, String where) {
    return run(TABLE, options, filterJson, where);
  }

  JobResult run(String tableName, Map<String, String> options, String filterJson, String where) {
    JobSpec spec =
        new JobSpec(
            null, tableName, TestTables.catalog(warehouse), options, filterJson, where, null);
    return new EmbeddedJobRunner(2, ProgressListener.NONE).run(spec);
  }

  void assertTableUnchanged() {
    TestTables.State after = TestTables.State.of(warehouse, TABLE);
    assertThat(after.snapshotId()).isEqualTo(before.snapshotId());
    assertThat(after.snapshots()).isEqualTo(before.snapshots());
    assertThat(after.rows()).isEqualTo(before.rows());
    // no new data files, no new metadata, and no job folder (the plan is stored only after all
    // checks)
    assertThat(after.files()).isEqualTo(before.files());
    assertThat(TestTables.localPath(location).resolve("_icecompact")).doesNotExist();
  }

  @Test
  void unknownOptionIsNamedWithTheValidOnes() {
    assertThatThrownBy(() -> run(Map.of("min-input-file", "2"), null, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Unknown rewrite option 'min-input-file' (did you mean 'min-input-files'?). Valid options: "
                + String.join(", ", RewriteOptions.validOptionNames()))
        .hasMessageContaining("min-input-files");
    assertTableUnchanged();
  }

  @Test
  void badValueOfOurOptionNamesOptionValueAndRule() {
    assertThatThrownBy(() -> run(Map.of("partial-progress.max-commits", "0"), null, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'partial-progress.max-commits' is set to 0 but must be > 0");
    assertTableUnchanged();
  }

  @Test
  void badValueOfAnIcebergOptionIsBadInput() {
    assertThatThrownBy(() -> run(Map.of("min-input-files", "abc"), null, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("'min-input-files' is set to abc but must be a whole number");
    assertThatThrownBy(() -> run(Map.of("target-file-size-bytes", "-5"), null, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Invalid rewrite option: ")
        .hasMessageContaining("target-file-size-bytes")
        .hasMessageContaining("-5");
    assertTableUnchanged();
  }

  @Test
  void unknownTableIsNamed() {
    assertThatThrownBy(() -> run("db.ordres", Map.of(), null, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Table not found: db.ordres");
    assertThatThrownBy(() -> run("nodb.orders", Map.of(), null, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Table not found: nodb.orders");
    assertTableUnchanged();
  }

  @Test
  void whereWithUnknownColumnIsNamed() {
    assertThatThrownBy(() -> run(Map.of(), null, "regoin = 'eu'"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Malformed filter \"regoin = 'eu'\": unknown column 'regoin'");
    assertTableUnchanged();
  }

  @Test
  void whereWithUnterminatedQuoteIsReported() {
    assertThatThrownBy(() -> run(Map.of(), null, "ordered_at >= '2026-06-02"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Malformed filter \"ordered_at >= '2026-06-02\": unterminated quote at position 14");
    assertTableUnchanged();
  }

  @Test
  void whereWithAValueOfTheWrongTypeIsReported() {
    assertThatThrownBy(() -> run(Map.of(), null, "order_id = 'abc'"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Malformed filter \"order_id = 'abc'\": cannot use abc as a value of column 'order_id' (long)");
    assertThatThrownBy(() -> run(Map.of(), null, "ordered_at >= 'last tuesday'"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Malformed filter \"ordered_at >= 'last tuesday'\": cannot use last tuesday as a value of"
                + " column 'ordered_at' (timestamptz)");
    assertTableUnchanged();
  }

  @Test
  void jsonFilterWithUnknownColumnIsNamed() {
    String json = ExpressionParser.toJson(Expressions.equal("regoin", "eu"));
    assertThatThrownBy(() -> run(Map.of(), json, null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter JSON " + json + ": ")
        .hasMessageContaining("Cannot find field 'regoin'");
    assertTableUnchanged();
  }

  @Test
  void unparsableJsonFilterIsReported() {
    assertThatThrownBy(() -> run(Map.of(), "{\"type\": \"eq\", \"term\": ", null))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter JSON {\"type\": \"eq\", \"term\": : ");
    assertTableUnchanged();
  }

  @Test
  void jsonAndWhereTogetherAreRefused() {
    String json = ExpressionParser.toJson(Expressions.equal("region", "eu"));
    assertThatThrownBy(() -> run(Map.of(), json, "region = 'eu'"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Give either 'filter' (Iceberg JSON) or 'where', not both");
    assertTableUnchanged();
  }

  @Test
  void missingCatalogTypeIsBadInput() {
    JobSpec spec =
        new JobSpec(null, TABLE, Map.of("uri", "jdbc:sqlite:/nowhere"), Map.of(), null, null, null);
    assertThatThrownBy(() -> new EmbeddedJobRunner(1, ProgressListener.NONE).run(spec))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Catalog properties must set 'type'");
    assertTableUnchanged();
  }
}
