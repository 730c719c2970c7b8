package io.icecompact.planner.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: a namespace larger than the assessment's deadline. The clock is the test's: each
 * reading of it advances 7 s, the time planning one 100k-file table took, so the deadline passes
 * after a known number of tables whatever the machine's speed.
 */
class FleetAssessorDeadlineTest {
  private static final int TABLES = 20;
  private static final long TICK_MILLIS = 7_000;

  @TempDir Path warehouse;
  private TableAccess access;

  @BeforeEach
  void namespaceOfTwentyTables() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    properties.put("jdbc.schema-version", "V1");
    properties.put("warehouse", warehouse.toString());
    // metadata-only tables: their metadata files in memory (this module's tests have no Hadoop
    // FileSystem)
    properties.put("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO");
    access = new TableAccess(properties);
    ((SupportsNamespaces) access.catalog()).createNamespace(Namespace.of("big"));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    for (int i = 0; i < TABLES; i++) {
      access.catalog().createTable(TableIdentifier.of("big", String.format("t%02d", i)), schema);
    }
  }

  @AfterEach
  void close() {
    access.close();
  }

  /** 0, 7 s, 14 s, ... one step per reading. */
  private static LongSupplier ticking() {
    AtomicLong now = new AtomicLong();
    return () -> now.getAndAdd(TICK_MILLIS);
  }

  @Test
  void theAssessmentStopsAtItsDeadlineAndReturnsThePartialRankingAndWhatItLeft() {
    // read at 0 (start), 7 s (listing), then once per table: 14 s ... 56 s pass, 63 s does not
    Deadline deadline = Deadline.in(Duration.ofSeconds(60), ticking());

    FleetAssessment result = new FleetAssessor(access).assess(List.of("big"), deadline, "sweep-1");

    assertThat(result.ranked()).hasSize(7);
    FleetAssessment.NotAssessed left = result.notAssessed();
    assertThat(left.any()).isTrue();
    assertThat(left.count()).isEqualTo(TABLES - 7);
    assertThat(left.tables()).hasSize(TABLES - 7);
    assertThat(left.namespaces()).isEmpty();
    assertThat(left.reason()).contains("deadline").contains("13 tables listed but not assessed");
    List<String> all = new ArrayList<>(left.tables());
    result.ranked().forEach(a -> all.add(a.table()));
    assertThat(all)
        .as("every table either assessed or named as left")
        .doesNotHaveDuplicates()
        .hasSize(TABLES);

    // the plan carries it: the Lambda's answer says how many were not assessed
    SweepPlan plan =
        SweepPlan.of(
            result,
            new SweepInput(Map.of("type", "jdbc"), List.of("big"), 10, 2, null, null, null),
            "sweep-1");
    assertThat(plan.tablesAssessed()).isEqualTo(7);
    assertThat(plan.notAssessed().count()).isEqualTo(13);
  }

  @Test
  void anotherSweepStartsElsewhereSoTheSameTablesAreNotAlwaysLeft() {
    List<String> first =
        new FleetAssessor(access)
            .assess(List.of("big"), Deadline.in(Duration.ofSeconds(60), ticking()), "sweep-1")
            .notAssessed()
            .tables();
    List<String> second =
        new FleetAssessor(access)
            .assess(List.of("big"), Deadline.in(Duration.ofSeconds(60), ticking()), "sweep-2")
            .notAssessed()
            .tables();

    assertThat(first).hasSize(13);
    assertThat(second).hasSize(13).isNotEqualTo(first);
  }

  @Test
  void aDeadlineAlreadyPassedListsNothingAndSaysWhichNamespaces() {
    FleetAssessment result =
        new FleetAssessor(access)
            .assess(List.of("big"), Deadline.in(Duration.ZERO, ticking()), "sweep-1");

    assertThat(result.ranked()).isEmpty();
    assertThat(result.notAssessed().namespaces()).containsExactly("big");
    assertThat(result.notAssessed().reason()).contains("1 namespaces not listed");
  }

  @Test
  void withoutADeadlineEveryTableIsAssessed() {
    FleetAssessment result =
        new FleetAssessor(access).assess(List.of("big"), Deadline.none(), "sweep-1");

    assertThat(result.ranked()).hasSize(TABLES);
    assertThat(result.notAssessed()).isEqualTo(FleetAssessment.NotAssessed.NONE);
  }
}
