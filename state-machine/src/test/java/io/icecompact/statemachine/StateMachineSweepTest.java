package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.core.scope.DeployedCatalog;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.lambda.AcquireLeaseHandler;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.SweepInput;
import io.icecompact.planner.fleet.SweepPlan;
import io.icecompact.planner.fleet.TableAssessment;
import io.icecompact.planner.fleet.TableHealth;
import io.icecompact.planner.lambda.AssessTablesHandler;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.EveryTableReaches;
import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.LocalStateMachine;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.worker.lambda.LeaseHeartbeat;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep ({@code sweep.asl.json}) on the local stand-ins: AssessTables runs the real handler,
 * and each table to compact is a child execution of the real compaction definition with the real
 * handlers.
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
        .containsExactly(
            "AssessTables", "AnythingToCompact?", "CompactTables", "Summarize", "Done");
    JsonNode output = result.outputJson();
    assertThat(output.get("tables_assessed").asInt()).isEqualTo(3);
    assertThat(output.get("compact_count").asInt()).isEqualTo(2);
    assertThat(output.get("decisions").get("COMPACT").asInt()).isEqualTo(2);
    assertThat(output.get("decisions").get("SKIP_DISABLED").asInt()).isEqualTo(1);
    assertThat(output.get("not_assessed").get("count").asInt()).isZero();
    assertThat(output.get("not_planned").get("count").asInt()).isZero();
    List<String> compacted = new ArrayList<>();
    for (JsonNode compaction : output.get("compactions")) {
      assertJobStatus(compaction, "COMMITTED");
      String table = compaction.get("table").asText();
      compacted.add(table);
      assertThat(compaction.get("name").asText())
          .startsWith(table + "-")
          .hasSizeLessThanOrEqualTo(80);
      assertThat(compaction.get("job_id").asText()).matches("job-[0-9a-f]{12}");
      assertThat(compaction.get("rewritten_data_files_count").asInt()).isEqualTo(INPUT_FILES);
      assertThat(compaction.get("added_data_files_count").asInt()).isEqualTo(GROUPS);
      assertThat(compaction.get("result_location").asText()).startsWith("s3://" + bucket + "/");
      // each table's policy steps ran in its compaction, none failed
      assertThat(compaction.get("care_failed").asInt()).as("%s", compaction).isZero();
    }
    assertThat(compacted).containsExactlyInAnyOrder(ORDERS, EVENTS);
    for (String name : List.of(ORDERS, EVENTS)) {
      Table table = access.loadTable(name);
      assertThat(liveTasks(table).size())
          .as("live files of %s", name)
          .isLessThan(filesBefore.get(name));
      assertThat(LiveRows.multiset(table))
          .as("live rows of %s", name)
          .isEqualTo(rowsBefore.get(name));
    }
    assertThat(access.loadTable(AUDIT).currentSnapshot().snapshotId()).isEqualTo(auditSnapshot);
    assertThat(EveryTableReaches.missingFiles(access.catalog()))
        .as("files some table reaches that are gone")
        .isEmpty();
    assertThat(payloads(ACQUIRE_LEASE))
        .extracting(p -> p.get("input").get("table").asText())
        .containsExactlyInAnyOrder(ORDERS, EVENTS);
    JsonNode assessTables = payloads(SweepDefinition.ASSESS_TABLES).get(0);
    assertThat(assessTables.get("execution_name").asText()).isNotBlank();
    // what grows with a sweep grows with max_tables (100 at most), not with the tables assessed
    assertThat(result.largestPayloads())
        .as("%s", result.payloads())
        .allSatisfy((state, bytes) -> assertThat(bytes).as(state).isLessThan(8 * 1024L));
  }

  /**
   * Issue 41: with a deployed catalog the sweep's input names none; AssessTables lists the deployed
   * catalog and passes it to each compaction, whose functions all check it again. A sweep input
   * naming another catalog is refused in its first state, before any table is read.
   */
  @Test
  void aSweepOnTheDeployedCatalogNeedsNoCatalogPropertiesAndRefusesAnother() {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);
    DeploymentScope scope =
        DeploymentScope.parse("db.*", "s3://" + bucket + "/warehouse/")
            .withCatalog(new DeployedCatalog(catalog));
    lambda.register(SweepDefinition.ASSESS_TABLES, new AssessTablesHandler(scope));
    lambda.register(ACQUIRE_LEASE, new AcquireLeaseHandler(leaseSteps, scope));
    lambda.register(PLAN_REWRITE, new PlanRewriteHandler(scope));
    lambda.register(
        REWRITE_GROUP, new RewriteGroupHandler(scope, new LeaseHeartbeat(leaseSteps.lease())));
    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease(), scope));
    Map<String, Object> input = sweepInput(catalog, List.of("db"));
    input.remove("catalog_properties");

    ExecutionResult result = runSweep(input);

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertThat(result.outputJson().get("compact_count").asInt()).isEqualTo(1);
    assertJobStatus(result.outputJson().get("compactions").get(0), "COMMITTED");
    assertThat(payloads(ACQUIRE_LEASE))
        .singleElement()
        .satisfies(
            p ->
                assertThat(JSON.convertValue(p.get("input").get("catalog_properties"), Map.class))
                    .as("the deployed catalog, passed on by the plan")
                    .isEqualTo(catalog));

    Map<String, Object> another =
        sweepInput(Map.of("type", "rest", "uri", "http://127.0.0.1:9/"), List.of("db"));
    ExecutionResult refused = runSweep(another);

    assertThat(refused.status()).isEqualTo("FAILED");
    assertThat(refused.error()).isEqualTo(OutsideDeploymentScopeException.class.getName());
    assertThat(tree(refused.cause()).get("errorMessage").asText())
        .startsWith(
            "The input's catalog_properties may not set type (differs from the deployed value),"
                + " uri (differs from the deployed value):");
    assertThat(payloads(ACQUIRE_LEASE)).as("no compaction started").hasSize(1);
  }

  /**
   * Issue 24: a sweep that names no care steps gives no compaction a step that deletes files
   * (expiry, orphan removal), whatever the tables are.
   */
  @Test
  void withoutCareStepsNoCompactionIsGivenExpiryOrOrphanRemoval() {
    Map<String, List<String>> care = sweepWithCareSteps(null);

    assertThat(care).containsOnlyKeys(ORDERS, EVENTS);
    // the defaults: manifests, and delete-cleanup since orders is v2 with delete files
    assertThat(care.get(ORDERS)).containsExactlyInAnyOrder("rewrite-manifests", "delete-cleanup");
    assertThat(care.get(EVENTS))
        .as("the table's own icecompact.steps")
        .containsExactly("rewrite-manifests");
  }

  /**
   * The sweep's care_steps are the steps of every table that names none; a table's own
   * icecompact.steps still wins. The steps then run in each compaction, and nothing any table
   * reaches is gone.
   */
  @Test
  void careStepsOfTheSweepReachEveryTableThatNamesNoneOfItsOwn() {
    Map<String, List<String>> care =
        sweepWithCareSteps(List.of("expire-snapshots", "remove-orphans"));

    assertThat(care).containsOnlyKeys(ORDERS, EVENTS);
    assertThat(care.get(ORDERS)).containsExactly("expire-snapshots", "remove-orphans");
    assertThat(care.get(EVENTS))
        .as("the table's own icecompact.steps")
        .containsExactly("rewrite-manifests");
  }

  /**
   * Sweeps orders (no icecompact.steps) and events ({@code icecompact.steps=rewrite-manifests})
   * with the given care_steps ({@code null}: left out), checks each compaction's care ran without a
   * failure, and returns, per table, the care its compaction's input listed; the steps CareForTable
   * ran must be the same.
   */
  private Map<String, List<String>> sweepWithCareSteps(List<String> careSteps) {
    Map<String, String> catalog = jdbcCatalog();
    createTable(catalog);
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(EVENTS), SHAPE)
        .updateProperties()
        .set(TablePolicy.STEPS, "rewrite-manifests")
        .commit();
    Map<String, Object> input = sweepInput(catalog, List.of("db"));
    if (careSteps != null) {
      input.put("care_steps", careSteps);
    }

    ExecutionResult result = runSweep(input);

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    for (JsonNode compaction : result.outputJson().get("compactions")) {
      assertJobStatus(compaction, "COMMITTED");
      assertThat(compaction.get("care_failed").asInt()).as("%s", compaction).isZero();
    }
    Map<String, List<String>> listed = new LinkedHashMap<>();
    payloads(ACQUIRE_LEASE)
        .forEach(
            p ->
                listed.put(
                    p.get("input").get("table").asText(), texts(p.get("input").get("care"))));
    Map<String, List<String>> ran = new LinkedHashMap<>();
    payloads(CompactionDefinition.CARE_FOR_TABLE)
        .forEach(p -> ran.put(p.get("job").get("table").asText(), texts(p.get("steps"))));
    assertThat(ran).as("the steps CareForTable ran").isEqualTo(listed);
    assertThat(EveryTableReaches.missingFiles(access.catalog()))
        .as("files some table reaches that are gone")
        .isEmpty();
    return listed;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null) {
      array.forEach(node -> out.add(node.asText()));
    }
    return out;
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

  /**
   * Whatever a compaction returns (job results whose reasons are 150,000 characters each,
   * NOTHING_TO_DO, the lease holder) or however it fails, the sweep keeps a few hundred bytes per
   * table: kept whole, the two long results alone would put the Map's result over 256 KiB. The
   * compactions here are a stub definition answering each of those by table name.
   */
  @Test
  void eachCompactionsOutcomeIsKeptInAFewHundredBytes() throws Exception {
    Map<String, String> catalog = jdbcCatalog();
    access = new TableAccess(catalog);
    FragmentedTable.Shape small = new FragmentedTable.Shape(1, 5, 10, 2, 0, 0, true);
    List<String> tables = List.of("db.failed", "db.partial", "db.nothing", "db.held", "db.broken");
    tables.forEach(
        name -> FragmentedTable.create(access.catalog(), TableIdentifier.parse(name), small));
    stepFunctions.childDefinition(SweepDefinition.COMPACTION_STATE_MACHINE_ARN, compactionStub());

    ExecutionResult result = runSweep(sweepInput(catalog, List.of("db")));

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    JsonNode output = result.outputJson();
    assertThat(output.get("compact_count").asInt()).isEqualTo(5);
    Map<String, JsonNode> byTable = new LinkedHashMap<>();
    output.get("compactions").forEach(c -> byTable.put(c.get("table").asText(), c));
    assertThat(byTable).containsOnlyKeys(tables);
    assertThat(byTable.get("db.failed").get("status").asText()).isEqualTo("FAILED");
    assertThat(byTable.get("db.failed").get("result_location").asText())
        .isEqualTo("s3://work/db.failed/result.json");
    assertThat(byTable.get("db.failed").has("reason")).isFalse();
    assertThat(byTable.get("db.partial").get("status").asText()).isEqualTo("PARTIAL");
    assertThat(byTable.get("db.partial").get("failed_groups").asInt()).isEqualTo(1);
    assertThat(byTable.get("db.partial").get("care_failed").asInt()).isEqualTo(2);
    assertThat(byTable.get("db.failed").get("care_failed").asInt()).isZero();
    assertThat(byTable.get("db.nothing").get("status").asText()).isEqualTo("NOTHING_TO_DO");
    assertThat(byTable.get("db.held").get("status").asText()).isEqualTo("LEASE_HELD");
    assertThat(byTable.get("db.broken").get("error").asText()).isEqualTo("States.TaskFailed");
    assertThat(byTable.get("db.broken").has("cause")).isFalse();
    byTable.values().forEach(c -> assertThat(json(c).length()).as("%s", c).isLessThan(400));
    assertThat(result.payloads().get("CompactTables").get("map_result")).isLessThan(4_000L);
  }

  /**
   * Issue 28: 100 tables to compact and 2.5 KB of catalog properties. With a copy of the catalog
   * per entry the plan was over 256 KiB (States.DataLimitExceeded, which no Catch takes, so every
   * such sweep failed); with one copy, merged into each child's input by the Map's ItemSelector,
   * every payload stays far below, and each compaction still receives the whole catalog.
   * AssessTables parses the real input and plans with the real SweepPlan over 100 assessments made
   * up here (real tables would take minutes); each compaction is a stub Lambda that records its
   * input.
   */
  @Test
  void
      aHundredTablesWithLargeCatalogPropertiesStayUnderThePayloadLimitAndEachChildGetsTheWholeCatalog()
          throws Exception {
    Map<String, String> catalog = new LinkedHashMap<>();
    catalog.put("type", "rest");
    catalog.put("uri", "https://catalog.example.com/iceberg");
    for (int i = 0; i < 10; i++) {
      catalog.put("header.x-setting-" + i, "v".repeat(250));
    }
    assertThat(json(catalog).length()).isGreaterThan(2_500);
    lambda.register(
        SweepDefinition.ASSESS_TABLES,
        (in, out, context) -> {
          JsonNode request = JSON.readTree(in);
          SweepInput sweepInput = SweepInput.parse(request.get("sweep"));
          List<TableAssessment> ranked = new ArrayList<>();
          for (int i = 0; i < 100; i++) {
            String table = String.format("db.table_%03d", i);
            TableHealth health =
                new TableHealth(table, 2, 1L, 10, 1000, 100, 2, 8, 0, 0, 0, 2, null, 1000 - i);
            TablePolicy policy =
                new TablePolicy(
                    true,
                    Duration.ZERO,
                    "day >= '2026-12-01'",
                    Map.of("min-input-files", "5", "partial-progress.enabled", "true"),
                    TablePolicy.DEFAULT_STEPS);
            ranked.add(
                new TableAssessment(table, health, policy, Decision.COMPACT, "because", null));
          }
          JobJson.mapper()
              .writeValue(
                  out, SweepPlan.of(ranked, sweepInput, request.get("execution_name").asText()));
        });
    String stub = "CompactionStub";
    lambda.register(
        stub,
        (in, out, context) -> {
          JsonNode child = JSON.readTree(in);
          JSON.writeValue(
              out, Map.of("table", child.get("table").asText(), "status", "NOTHING_TO_DO"));
        });
    ObjectNode child = JSON.createObjectNode().put("StartAt", "Record");
    child
        .putObject("States")
        .putObject("Record")
        .put("Type", "Task")
        .put("Resource", LocalLambda.arn(stub))
        .put("End", true);
    Path childFile = testDir.resolve("compaction-recorder.asl.json");
    JSON.writeValue(childFile.toFile(), child);
    stepFunctions.childDefinition(SweepDefinition.COMPACTION_STATE_MACHINE_ARN, childFile);
    Map<String, Object> input = sweepInput(catalog, List.of("db"));
    input.put("max_tables", 100);
    input.put("max_concurrent_tables", 40);
    input.put("work_location", "s3://work/sweeps");

    ExecutionResult result = runSweep(input);

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertThat(result.limitViolations()).isEmpty();
    assertThat(result.outputJson().get("compact_count").asInt()).isEqualTo(100);
    assertThat(result.payloads().get("AssessTables").get("task_result"))
        .as("the plan: one copy of the catalog, not 100")
        .isLessThan(64 * 1024L);
    assertThat(result.largestPayloads())
        .allSatisfy(
            (state, bytes) ->
                assertThat(bytes).as(state).isLessThan(LocalStateMachine.PAYLOAD_LIMIT_BYTES / 2));
    List<JsonNode> children = payloads(stub);
    assertThat(children).hasSize(100);
    for (JsonNode received : children) {
      assertThat(JSON.convertValue(received.get("catalog_properties"), Map.class))
          .isEqualTo(catalog);
      assertThat(received.get("table").asText()).startsWith("db.table_");
      assertThat(received.get("where").asText()).isEqualTo("day >= '2026-12-01'");
      assertThat(received.get("options").get("min-input-files").asText()).isEqualTo("5");
      assertThat(received.get("work_location").asText()).isEqualTo("s3://work/sweeps");
      assertThat(received.has("max_concurrency"))
          .as("absent from the sweep: absent, not null")
          .isFalse();
    }
    assertThat(children).extracting(c -> c.get("table").asText()).doesNotHaveDuplicates();
  }

  /**
   * A compaction state machine that answers each of the stub's tables with one of the real outputs.
   */
  private Path compactionStub() throws java.io.IOException {
    ObjectNode states = JSON.createObjectNode();
    ArrayNode choices = JSON.createArrayNode();
    Map<String, Object> outputs = new LinkedHashMap<>();
    outputs.put("db.failed", summary("db.failed", JobStatus.FAILED, 0));
    outputs.put("db.partial", summary("db.partial", JobStatus.PARTIAL, 1));
    outputs.put(
        "db.nothing",
        Map.of(
            "job_id",
            "job-nothing",
            "table",
            "db.nothing",
            "status",
            "NOTHING_TO_DO",
            "reason",
            "No file group met a rewrite threshold"));
    outputs.put(
        "db.held",
        Map.of(
            "acquired",
            false,
            "table",
            "db.held",
            "owner",
            "sweep",
            "token",
            0,
            "held_by",
            "arn:aws:states:us-east-1:123456789012:execution:compaction:nightly",
            "held_until_millis",
            1));
    outputs.forEach(
        (table, answer) -> {
          String state = "Answer" + table.substring(3);
          choices.add(
              JSON.createObjectNode()
                  .put("Variable", "$.table")
                  .put("StringEquals", table)
                  .put("Next", state));
          states.set(
              state,
              JSON.createObjectNode()
                  .put("Type", "Pass")
                  .put("End", true)
                  .set("Result", JSON.valueToTree(answer)));
        });
    states.set(
        "Which",
        JSON.createObjectNode()
            .put("Type", "Choice")
            .put("Default", "Broken")
            .set("Choices", choices));
    states.set(
        "Broken",
        JSON.createObjectNode()
            .put("Type", "Fail")
            .put("Error", "Boom")
            .put("Cause", "x".repeat(10_000)));
    ObjectNode definition = JSON.createObjectNode().put("StartAt", "Which");
    definition.set("States", states);
    Path file = testDir.resolve("compaction-stub.asl.json");
    JSON.writeValue(file.toFile(), definition);
    return file;
  }

  /**
   * A job result summary as CommitSnapshot returns it, its reason then made 150,000 characters long
   * (a summary cuts it at 2,000): larger than any real output, which the sweep must not carry
   * whole.
   */
  private static JsonNode summary(String table, JobStatus status, int failedGroups) {
    JobResult whole =
        JobResult.builder("job-" + table.substring(3), table, status)
            .reason("why")
            .failedDataFilesCount(5)
            .failedGroups(failedGroups)
            .durationMillis(10)
            .groups(List.of())
            .build();
    ObjectNode summary =
        JobJson.mapper().valueToTree(whole.summary("s3://work/" + table + "/result.json"));
    // as CareForTable (or NoCare) leaves it: one line per step, the whole reports in care.json
    ObjectNode care = summary.putObject("care").put("failed", failedGroups * 2);
    care.putArray("steps")
        .addObject()
        .put("step", "expire-snapshots")
        .put("status", "FAILED")
        .put("summary", "s".repeat(50_000));
    return summary.put("reason", "r".repeat(150_000));
  }

  private static Map<String, Object> sweepInput(
      Map<String, String> catalog, List<String> namespaces) {
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
