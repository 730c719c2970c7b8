package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LiveRows;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep ({@code sweep.asl.json}) on the local stand-ins: AssessTables runs the real handler, and each
 * table to compact is a child execution of the real compaction definition with the real handlers.
 */
class StateMachineSweepTest extends StateMachineTestBase {
  private static final String ORDERS = TABLE;
  private static final String EVENTS = "db.events";
  private static final String AUDIT = "db.audit";

  private Path sweep;

  @BeforeEach
  void sweepDefinition() {
    sweep = SweepDefinition.writeForLocalLambda(testDir);
    stepFunctions.requireValid(sweep);
    stepFunctions.childDefinition(SweepDefinition.COMPACTION_STATE_MACHINE_ARN, definition);
  }

  @Test
  void theTwoEnabledFragmentedTablesAreCompactedAndTheOptedOutOneIsLeftAlone() {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(EVENTS), SHAPE);
    Table audit = FragmentedTable.create(access.catalog(), TableIdentifier.parse(AUDIT), SHAPE);
    audit.updateProperties().set(TablePolicy.ENABLED, "false").commit();
    Map<String, Map<String, Long>> rowsBefore = new LinkedHashMap<>();
    Map<String, Integer> filesBefore = new LinkedHashMap<>();
    for (String name : List.of(ORDERS, EVENTS)) {
      Table table = access.loadTable(name);
      rowsBefore.put(name, LiveRows.multiset(table));
      filesBefore.put(name, liveTasks(table).size());
    }
    long auditSnapshot = access.loadTable(AUDIT).currentSnapshot().snapshotId();

    ExecutionResult result = runSweep(sweepInput(catalog, List.of("db")));

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertThat(result.states())
        .containsExactly("AssessTables", "AnythingToCompact?", "CompactTables", "Summarize", "Done");
    JsonNode output = result.outputJson();
    assertThat(output.get("tables_assessed").asInt()).isEqualTo(3);
    assertThat(output.get("compact_count").asInt()).isEqualTo(2);
    assertThat(output.get("decisions").get("COMPACT").asInt()).isEqualTo(2);
    assertThat(output.get("decisions").get("SKIP_DISABLED").asInt()).isEqualTo(1);
    List<String> compacted = new ArrayList<>();
    for (JsonNode compaction : output.get("compactions")) {
      JsonNode job = compaction.get("output");
      assertThat(job).as("compaction %s", compaction).isNotNull();
      assertJobStatus(job, "COMMITTED");
      String table = job.get("table").asText();
      compacted.add(table);
      assertThat(compaction.get("name").asText()).startsWith(table + "-").hasSizeLessThanOrEqualTo(80);
    }
    assertThat(compacted).containsExactlyInAnyOrder(ORDERS, EVENTS);
    for (String name : List.of(ORDERS, EVENTS)) {
      Table table = access.loadTable(name);
      assertThat(liveTasks(table).size()).as("live files of %s", name).isLessThan(filesBefore.get(name));
      assertThat(LiveRows.multiset(table)).as("live rows of %s", name).isEqualTo(rowsBefore.get(name));
    }
    assertThat(access.loadTable(AUDIT).currentSnapshot().snapshotId()).isEqualTo(auditSnapshot);
    assertThat(payloads(ACQUIRE_LEASE))
        .extracting(p -> p.get("input").get("table").asText())
        .containsExactlyInAnyOrder(ORDERS, EVENTS);
    JsonNode assessTables = payloads(SweepDefinition.ASSESS_TABLES).get(0);
    assertThat(assessTables.get("execution_name").asText()).isNotBlank();
  }

  @Test
  void anInvalidSweepInputFailsInAssessTablesNamingTheFieldAndStartsNoCompaction() {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);

    ExecutionResult result = runSweep(sweepInput(catalog, List.of()));

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states()).containsExactly("AssessTables", "InvalidInput");
    assertThat(result.error()).isEqualTo("io.icecompact.core.error.InvalidJobInputException");
    assertThat(tree(result.cause()).get("errorMessage").asText())
        .startsWith("Sweep input is invalid: ")
        .contains("$.namespaces");
    assertThat(lambda.invocations(ACQUIRE_LEASE)).isZero();
  }

  private static Map<String, Object> sweepInput(Map<String, String> catalog, List<String> namespaces) {
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("catalog_properties", catalog);
    input.put("namespaces", namespaces);
    input.put("max_concurrent_tables", 2);
    return input;
  }

  private ExecutionResult runSweep(Map<String, Object> input) {
    ExecutionResult result = stepFunctions.run(sweep, json(input));
    executions.add(result);
    return result;
  }
}
