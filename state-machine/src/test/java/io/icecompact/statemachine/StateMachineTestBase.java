package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.CARE_FOR_TABLE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.RELEASE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.care.lambda.CareForTableHandler;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.lease.JobLog;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.lease.lambda.AcquireLeaseHandler;
import io.icecompact.lease.lambda.ReleaseLeaseHandler;
import io.icecompact.planner.lambda.AssessTablesHandler;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.FaultyS3;
import io.icecompact.testkit.LocalAwsCredentials;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.LocalStateMachine;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.worker.lambda.LeaseHeartbeat;
import io.icecompact.worker.lambda.RecordGroupFailureHandler;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Runs the real definition ({@code compaction.asl.json}, placeholders filled with {@link
 * LocalLambda} ARNs) with aws-local-stepfunctions, each Task state invoking the project's real
 * Lambda handlers in this JVM. One local S3, DynamoDB, Lambda endpoint and interpreter per test
 * class; each test gets its own bucket (the warehouse), lease table, SQLite catalog file and
 * freshly registered handlers.
 */
abstract class StateMachineTestBase {
  static final String TABLE = "db.orders";

  /**
   * 4 day partitions of 5 files of 300 rows, position deletes on 2 files, 10 equality-deleted ids.
   */
  static final FragmentedTable.Shape SHAPE = new FragmentedTable.Shape(4, 5, 300, 2, 2, 10, true);

  /** One group per day partition. */
  static final int GROUPS = 4;

  static final int INPUT_FILES = 20;

  /** The seed of {@link #faults}' probability draws. */
  static final long FAULT_SEED = 20261202L;

  static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger NAMES = new AtomicInteger();

  static LocalS3 s3;

  /** A fault proxy in front of {@link #s3}, for the executions of tests that inject S3 faults. */
  static FaultyS3 faults;

  static LocalDynamoDb dynamo;
  static LocalLambda lambda;
  static LocalStateMachine stepFunctions;
  static Path definition;

  @TempDir static Path classDir;
  @TempDir Path testDir;

  /** The executions this test ran, whose payloads are checked after it. */
  final List<ExecutionResult> executions = new java.util.concurrent.CopyOnWriteArrayList<>();

  String bucket;
  String leaseTable;
  LeaseSteps leaseSteps;

  /** The test's own view of the table, through the same catalog properties the execution gets. */
  TableAccess access;

  @BeforeAll
  static void startLocalAws() {
    s3 = new LocalS3().start();
    faults = new FaultyS3(s3, FAULT_SEED).start();
    dynamo = new LocalDynamoDb().start();
    lambda = new LocalLambda().start();
    stepFunctions =
        new LocalStateMachine(lambda).timeout(Duration.ofSeconds(120)).retryInterval(Duration.ZERO);
    definition = CompactionDefinition.writeForLocalLambda(classDir);
  }

  @AfterAll
  static void stopLocalAws() {
    if (stepFunctions != null) {
      stepFunctions.close();
    }
    if (lambda != null) {
      lambda.close();
    }
    if (dynamo != null) {
      dynamo.close();
    }
    if (faults != null) {
      faults.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @BeforeEach
  void freshWarehouseAndLeaseTable() {
    int n = NAMES.incrementAndGet();
    bucket = s3.createBucket("warehouse-" + n);
    leaseTable = "icecompact-leases-" + n;
    LeaseTableSchema.create(dynamo.client(), leaseTable);
    leaseSteps = LeaseSteps.of(dynamo.client(), leaseTable, Clock.systemUTC());
    registerRealHandlers();
    lambda.resetCounts();
  }

  @AfterEach
  void closeAccess() {
    faults.clearRules();
    faults.clearInjected();
    if (access != null) {
      access.close();
    }
  }

  /** Every function of the definition runs its real handler; a test may wrap one afterwards. */
  void registerRealHandlers() {
    lambda.register(ACQUIRE_LEASE, new AcquireLeaseHandler(leaseSteps));
    lambda.register(PLAN_REWRITE, new PlanRewriteHandler());
    lambda.register(REWRITE_GROUP, rewriteGroupHandler());
    lambda.register(RECORD_GROUP_FAILURE, new RecordGroupFailureHandler());
    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease()));
    lambda.register(RELEASE_LEASE, new ReleaseLeaseHandler(leaseSteps));
    lambda.register(CARE_FOR_TABLE, new CareForTableHandler(leaseSteps.lease()));
    lambda.register(SweepDefinition.ASSESS_TABLES, new AssessTablesHandler());
  }

  /** Every function with the deployment's scope, as the template's environment gives it. */
  void registerScopedHandlers(DeploymentScope scope) {
    lambda.register(ACQUIRE_LEASE, new AcquireLeaseHandler(leaseSteps, scope));
    lambda.register(PLAN_REWRITE, new PlanRewriteHandler(scope));
    lambda.register(
        REWRITE_GROUP, new RewriteGroupHandler(scope, new LeaseHeartbeat(leaseSteps.lease())));
    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease(), scope));
    lambda.register(CARE_FOR_TABLE, new CareForTableHandler(leaseSteps.lease(), scope));
    lambda.register(RECORD_GROUP_FAILURE, new RecordGroupFailureHandler(scope));
  }

  /** The worker as deployed: it keeps the execution's lease alive in this test's lease table. */
  RewriteGroupHandler rewriteGroupHandler() {
    return new RewriteGroupHandler(
        DeploymentScope.unrestricted(), new LeaseHeartbeat(leaseSteps.lease()));
  }

  // ---- catalogs ----

  /**
   * A JDBC catalog on SQLite (a file of this test) over a warehouse on local S3, read with
   * S3FileIO.
   */
  Map<String, String> jdbcCatalog() {
    return jdbcCatalog(S3FileIO.class.getName());
  }

  Map<String, String> jdbcCatalog(String fileIoImpl) {
    Map<String, String> properties =
        s3.jdbcCatalogProperties(bucket, testDir.resolve("catalog.db"));
    properties.put("io-impl", fileIoImpl);
    return properties;
  }

  /**
   * The same JDBC catalog as {@link #jdbcCatalog()}, reaching S3 through {@link #faults}: for the
   * execution, while the test reads the table through the direct one.
   */
  Map<String, String> faultyJdbcCatalog() {
    return faults.jdbcCatalogProperties(bucket, testDir.resolve("catalog.db"));
  }

  /**
   * Iceberg's DynamoDbCatalog on local DynamoDB (its own catalog table) over a warehouse on local
   * S3. iceberg-aws 1.12 names: {@code dynamodb.endpoint}, {@code dynamodb.table-name}, {@code
   * client.region} (also S3FileIO's), {@code client.credentials-provider} (+ {@code
   * client.credentials-provider.*}).
   */
  Map<String, String> dynamoDbCatalog() {
    Map<String, String> properties = new TreeMap<>(s3.icebergProperties());
    properties.put("catalog-impl", "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog");
    properties.put("dynamodb.table-name", "iceberg-catalog-" + NAMES.incrementAndGet());
    properties.put("dynamodb.endpoint", dynamo.endpoint().toString());
    properties.put("client.credentials-provider", LocalAwsCredentials.class.getName());
    // S3FileIO uses this provider too (over its s3.access-key-id): the keys local S3 checks; local
    // DynamoDB takes any.
    properties.put(LocalAwsCredentials.PREFIX + "access-key-id", LocalS3.ACCESS_KEY_ID);
    properties.put(LocalAwsCredentials.PREFIX + "secret-access-key", LocalS3.SECRET_ACCESS_KEY);
    properties.put("warehouse", "s3://" + bucket + "/warehouse");
    properties.put("io-impl", S3FileIO.class.getName());
    return properties;
  }

  /**
   * Creates the fragmented table through {@code catalog} (the catalog name is the one handlers
   * use).
   */
  Table createTable(Map<String, String> catalog) {
    access = new TableAccess(catalog);
    return FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), SHAPE);
  }

  /** The table as the catalog has it now. */
  Table table() {
    return access.loadTable(TABLE);
  }

  // ---- executions ----

  static Map<String, Object> input(Map<String, String> catalog) {
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("table", TABLE);
    input.put("catalog_properties", catalog);
    return input;
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  ExecutionResult run(Map<String, Object> input) {
    return run(json(input));
  }

  /**
   * Runs one execution of the definition; every execution of a test is checked against Step
   * Functions' payload limits after the test ({@link #noPayloadOverStepFunctionsLimits}).
   */
  ExecutionResult run(String inputJson) {
    ExecutionResult result = stepFunctions.run(definition, inputJson);
    executions.add(result);
    return result;
  }

  /**
   * Fails the test when any of its executions had a state input or output, a Task result or a Map's
   * items or result over 256 KiB, or a function answered more than that: AWS would have failed the
   * execution with {@code States.DataLimitExceeded}, which the local interpreter does not enforce.
   */
  @AfterEach
  void noPayloadOverStepFunctionsLimits() {
    List<String> violations = new ArrayList<>(lambda.limitViolations());
    executions.forEach(result -> violations.addAll(result.limitViolations()));
    assertThat(violations).as("payloads over Step Functions' limits").isEmpty();
  }

  /** The path of a compaction that ran to the end. */
  static final List<String> COMPACTED_PATH =
      List.of(
          "AcquireLease",
          "LeaseAcquired?",
          "PlanRewrite",
          "AnythingToDo?",
          "RewriteFileGroups",
          "CommitSnapshot",
          "CareRequested?",
          "NoCare",
          "ReleaseLease",
          "Done");

  static void assertSucceeded(ExecutionResult result, List<String> path) {
    assertThat(result.status())
        .as(
            "execution: %s %s %s, states %s",
            result.status(), result.error(), result.cause(), result.states())
        .isEqualTo("SUCCEEDED");
    assertThat(result.states()).containsExactlyElementsOf(path);
  }

  /**
   * The whole job result the committer stored at the summary's {@code result_location}, with every
   * group's outcome (the execution's output is the summary, without them).
   */
  JsonNode wholeResult(JsonNode summary) {
    assertThat(summary.has("groups")).as("the summary carries no per-group outcomes").isFalse();
    String location = summary.get("result_location").asText();
    try (java.io.InputStream in = access.fileIO().newInputFile(location).newStream()) {
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The job result's status, with the whole result in the failure message. */
  static void assertJobStatus(JsonNode output, String status) {
    assertThat(output.get("status").asText())
        .as("job result %s", output.toPrettyString())
        .isEqualTo(status);
  }

  // ---- what the functions received ----

  /** The payloads a function received, parsed. */
  static List<JsonNode> payloads(String function) {
    List<JsonNode> parsed = new ArrayList<>();
    lambda.payloads(function).forEach(payload -> parsed.add(tree(payload)));
    return parsed;
  }

  /** RewriteGroup invocations per group index. */
  static Map<Integer, Integer> rewriteInvocationsByGroup() {
    Map<Integer, Integer> counts = new TreeMap<>();
    payloads(REWRITE_GROUP)
        .forEach(p -> counts.merge(p.get("group").get("group_index").asInt(), 1, Integer::sum));
    return counts;
  }

  /** The execution ids ({@code $$.Execution.Id}) AcquireLease was called with, in arrival order. */
  static List<String> executionIds() {
    return payloads(ACQUIRE_LEASE).stream().map(p -> p.get("execution_id").asText()).toList();
  }

  /** The plan summary the committer received (the PlanRewrite output in the execution state). */
  static JsonNode committedPlan() {
    List<JsonNode> commits = payloads(COMMIT_SNAPSHOT);
    assertThat(commits).isNotEmpty();
    return commits.get(0).get("plan");
  }

  /** The work location of the plan CommitSnapshot received. */
  static WorkLocation committedWork() {
    return new WorkLocation(committedPlan().get("plan_ref").get("work_location").asText());
  }

  /**
   * Invocations of AcquireLease, PlanRewrite, RewriteGroup, RecordGroupFailure, CommitSnapshot,
   * ReleaseLease.
   */
  static void assertInvocations(
      int acquire, int plan, int rewrite, int recordFailure, int commit, int release) {
    Map<String, Integer> actual = new LinkedHashMap<>();
    Map<String, Integer> expected = new LinkedHashMap<>();
    String[] functions = {
      ACQUIRE_LEASE,
      PLAN_REWRITE,
      REWRITE_GROUP,
      RECORD_GROUP_FAILURE,
      COMMIT_SNAPSHOT,
      RELEASE_LEASE
    };
    int[] counts = {acquire, plan, rewrite, recordFailure, commit, release};
    for (int i = 0; i < functions.length; i++) {
      actual.put(functions[i], lambda.invocations(functions[i]));
      expected.put(functions[i], counts[i]);
    }
    assertThat(actual).as("Lambda invocations").containsExactlyEntriesOf(expected);
  }

  // ---- the table ----

  static List<Snapshot> snapshots(Table table) {
    table.refresh();
    List<Snapshot> all = new ArrayList<>();
    table.snapshots().forEach(all::add);
    return all;
  }

  /** Snapshots committed after the first {@code before}, oldest first. */
  static List<Snapshot> newSnapshots(Table table, int before) {
    List<Snapshot> all = snapshots(table);
    return List.copyOf(all.subList(before, all.size()));
  }

  static void assertReplaceStampedWith(Snapshot snapshot, String jobId) {
    assertThat(snapshot.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(snapshot.summary()).containsEntry("icecompact.job-id", jobId);
  }

  static List<FileScanTask> liveTasks(Table table) {
    table.refresh();
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  static String partitionOf(Table table, FileScanTask task) {
    return table.specs().get(task.file().specId()).partitionToPath(task.file().partition());
  }

  static String fileName(String location) {
    return location.substring(location.lastIndexOf('/') + 1);
  }

  // ---- the lease table ----

  List<JobLogEntry> jobLog() {
    return new JobLog(dynamo.client(), leaseTable).recent(TABLE, 10);
  }

  /** The lease item of the table, empty when there is none. */
  Map<String, AttributeValue> leaseItem() {
    Map<String, AttributeValue> item =
        dynamo
            .client()
            .getItem(
                b ->
                    b.tableName(leaseTable)
                        .consistentRead(true)
                        .key(
                            Map.of(
                                LeaseTableSchema.PK, AttributeValue.fromS(TABLE),
                                LeaseTableSchema.SK, AttributeValue.fromS("lease"))))
            .item();
    return item == null ? Map.of() : item;
  }

  int leaseTableItemCount() {
    return dynamo.client().scan(b -> b.tableName(leaseTable).consistentRead(true)).count();
  }

  static long number(Map<String, AttributeValue> item, String attribute) {
    assertThat(item).containsKey(attribute);
    return Long.parseLong(item.get(attribute).n());
  }
}
