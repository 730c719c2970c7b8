package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.CARE_FOR_TABLE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.RELEASE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.care.lambda.CareForTableHandler;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.scope.DeployedCatalog;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.planner.lambda.AssessTablesHandler;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.EveryTableReaches;
import io.icecompact.testkit.LocalRestCatalog;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.worker.lambda.RecordGroupFailureHandler;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Abuse of the execution input, on the real definition: a table or location outside what the
 * deployment allows ({@code ALLOWED_TABLES}, {@code ALLOWED_LOCATIONS}) is refused before anything
 * is written, and a job that runs leaves its credentials out of every payload, log line and
 * document it writes.
 */
class StateMachineSecurityTest extends StateMachineTestBase {

  private DeploymentScope scopeOfThisWarehouse(String tables) {
    return DeploymentScope.parse(tables, "s3://" + bucket + "/warehouse/");
  }

  @Test
  void aTableOutsideTheAllowedTablesIsRefusedBeforeTheLeaseIsTaken() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    registerScopedHandlers(scopeOfThisWarehouse("analytics.*"));

    ExecutionResult result = run(input(catalog));

    assertRefusedInTheFirstState(
        result,
        "Table 'db.orders' is outside this deployment's allowed tables [analytics.*] (ALLOWED_TABLES);"
            + " nothing was written");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
  }

  @Test
  void aWorkLocationOutsideTheAllowedLocationsIsRefusedBeforeTheLeaseIsTaken() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    registerScopedHandlers(scopeOfThisWarehouse("db.*"));
    Map<String, Object> input = input(catalog);
    input.put("work_location", "s3://" + bucket + "/warehouse/../elsewhere");

    ExecutionResult result = run(input);

    assertRefusedInTheFirstState(
        result,
        "The work_location 's3://"
            + bucket
            + "/warehouse/../elsewhere' is outside this deployment's allowed"
            + " locations [s3://"
            + bucket
            + "/warehouse/] (ALLOWED_LOCATIONS): it has a '.' or '..' segment;"
            + " nothing was written");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
  }

  @Test
  void aTableWhoseLocationIsOutsideIsRefusedByThePlannerWhichWritesNothing() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    int objectsBefore = objects().size();
    // the table is allowed by name, but lives in a warehouse this deployment may not write
    registerScopedHandlers(DeploymentScope.parse("db.*", "s3://another-bucket/warehouse/"));

    ExecutionResult result = run(input(catalog));

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states())
        .containsExactly(
            "AcquireLease",
            "LeaseAcquired?",
            "PlanRewrite",
            "ReleaseLeaseAfterFailure",
            "JobFailed");
    assertThat(result.error()).isEqualTo(OutsideDeploymentScopeException.class.getName());
    assertThat(tree(result.cause()).get("errorMessage").asText())
        .isEqualTo(
            "The table location 's3://"
                + bucket
                + "/warehouse/db/orders' is outside this deployment's"
                + " allowed locations [s3://another-bucket/warehouse/] (ALLOWED_LOCATIONS); nothing was written");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertThat(objects()).as("no plan or other object written").hasSize(objectsBefore);
    assertThat(leaseItem()).containsKey("released_at");
    assertInvocations(1, 1, 0, 0, 0, 1);
  }

  @Test
  void aRecommitOfATableWhoseLocationIsOutsideIsRefusedBeforeItCommits() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    int objectsBefore = objects().size();
    registerScopedHandlers(DeploymentScope.parse("db.*", "s3://another-bucket/warehouse/"));
    Map<String, Object> input = input(catalog);
    input.put("recommit", true);
    input.put("job_id", "job-0123456789ab");

    ExecutionResult result = run(input);

    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states())
        .containsExactly(
            "AcquireLease",
            "LeaseAcquired?",
            "LoadStoredPlan",
            "ReleaseLeaseAfterFailure",
            "JobFailed");
    assertThat(result.error()).isEqualTo(OutsideDeploymentScopeException.class.getName());
    assertThat(tree(result.cause()).get("errorMessage").asText())
        .isEqualTo(
            "The table location 's3://"
                + bucket
                + "/warehouse/db/orders' is outside this deployment's"
                + " allowed locations [s3://another-bucket/warehouse/] (ALLOWED_LOCATIONS); nothing was written");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertThat(objects()).hasSize(objectsBefore);
  }

  @Test
  void careForATableWhoseLocationIsOutsideIsRefusedAndDeletesNothing() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    // the compaction is in scope; only care is given a scope without this warehouse, to reach its
    // own check
    lambda.register(
        CARE_FOR_TABLE,
        new CareForTableHandler(
            leaseSteps.lease(), DeploymentScope.parse("db.*", "s3://another-bucket/warehouse/")));
    Map<String, Object> input = input(catalog);
    input.put("care", List.of("expire-snapshots"));

    ExecutionResult result = run(input);

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertJobStatus(result.outputJson(), "COMMITTED");
    JsonNode care = result.outputJson().get("care");
    assertThat(care.get("failed").asInt()).as("%s", care).isEqualTo(1);
    assertThat(care.get("steps")).as("no step ran").isEmpty();
    assertThat(care.get("error").asText())
        .isEqualTo(OutsideDeploymentScopeException.class.getName());
    assertThat(lambda.invocations(CARE_FOR_TABLE)).as("refused, not retried").isEqualTo(1);
    assertThat(snapshots(table)).as("nothing expired").hasSize(snapshotsBefore + 1);
  }

  @Test
  void aJobLeavesItsCredentialsOutOfPayloadsLogsAndDocuments() throws Exception {
    // Credentials come from the default chain (system properties here, the role in AWS), never from
    // the
    // input: then no payload carries them, and nothing the functions log or store may either.
    Map<String, String> previous = new TreeMap<>();
    for (String key : List.of("aws.accessKeyId", "aws.secretAccessKey")) {
      previous.put(key, System.getProperty(key));
    }
    System.setProperty("aws.accessKeyId", LocalS3.ACCESS_KEY_ID);
    System.setProperty("aws.secretAccessKey", LocalS3.SECRET_ACCESS_KEY);
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream logs = new ByteArrayOutputStream();
    try {
      Map<String, String> catalog = new TreeMap<>(jdbcCatalog());
      catalog.keySet().removeIf(key -> key.contains("access-key") || key.contains("secret"));
      createTable(jdbcCatalog());
      registerScopedHandlers(scopeOfThisWarehouse("db.*"));
      Map<String, Object> input = input(catalog);
      input.put("care", List.of("expire-snapshots", "remove-orphans"));
      PrintStream capture = new PrintStream(logs, true, StandardCharsets.UTF_8);
      System.setOut(new PrintStream(new TeeStream(out, capture), true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(new TeeStream(err, capture), true, StandardCharsets.UTF_8));

      ExecutionResult result = run(input);

      System.setOut(out);
      System.setErr(err);
      assertThat(result.status())
          .as("%s %s", result.error(), result.cause())
          .isEqualTo("SUCCEEDED");
      assertJobStatus(tree(result.output()), "COMMITTED");
      assertThat(table().currentSnapshot().operation()).isEqualTo("replace");
      // the care steps ran on the table: nothing any table reaches is gone
      assertThat(EveryTableReaches.missingFiles(access.catalog()))
          .as("files some table reaches that are gone")
          .isEmpty();

      List<String> places = new ArrayList<>();
      for (String function :
          List.of(
              ACQUIRE_LEASE,
              PLAN_REWRITE,
              REWRITE_GROUP,
              COMMIT_SNAPSHOT,
              CARE_FOR_TABLE,
              RELEASE_LEASE)) {
        lambda.payloads(function).forEach(p -> places.add(function + " payload: " + p));
      }
      places.add("execution output: " + result.output());
      places.add("logs: " + logs.toString(StandardCharsets.UTF_8));
      for (Map<String, AttributeValue> item :
          dynamo.client().scan(b -> b.tableName(leaseTable)).items()) {
        places.add("lease table item: " + item);
      }
      for (S3Object object : objects()) {
        if (object.key().endsWith(".json")) {
          places.add(
              object.key()
                  + ": "
                  + s3.client()
                      .getObjectAsBytes(b -> b.bucket(bucket).key(object.key()))
                      .asUtf8String());
        }
      }
      assertThat(places).as("places checked").hasSizeGreaterThan(20);
      assertThat(logs.size()).as("the functions logged").isPositive();
      assertThat(places)
          .noneMatch(
              p -> p.contains(LocalS3.SECRET_ACCESS_KEY) || p.contains(LocalS3.ACCESS_KEY_ID))
          .noneMatch(p -> p.contains("X-Amz-Signature") || p.contains("X-Amz-Credential"));
    } finally {
      System.setOut(out);
      System.setErr(err);
      previous.forEach(
          (key, value) -> {
            if (value == null) {
              System.clearProperty(key);
            } else {
              System.setProperty(key, value);
            }
          });
    }
  }

  /**
   * The confused deputy of issue 41: a caller allowed to start executions names a REST catalog of
   * its own, which describes "db.orders" at the real table's folder (registered from its metadata
   * file), and asks for orphan removal and expiry. The deployment owns its catalog: the input is
   * refused in the first state, naming the keys; the lying catalog is never asked, and not one
   * object of the warehouse changes.
   */
  @Test
  void anInputNamingAnotherCatalogIsRefusedBeforeTheLeaseAndTheLyingCatalogIsNeverAsked()
      throws Exception {
    Map<String, String> deployed = jdbcCatalog();
    Table table = createTable(deployed);
    int snapshotsBefore = snapshots(table).size();
    Map<String, String> lyingBacking =
        new TreeMap<>(s3.jdbcCatalogProperties(bucket, testDir.resolve("lying.db")));
    lyingBacking.put("io-impl", S3FileIO.class.getName());
    try (TableAccess lyingAccess = new TableAccess(lyingBacking);
        LocalRestCatalog lying = new LocalRestCatalog(lyingAccess.catalog())) {
      ((SupportsNamespaces) lyingAccess.catalog()).createNamespace(Namespace.of("db"));
      lyingAccess
          .catalog()
          .registerTable(TableIdentifier.parse(TABLE), TableAccess.metadataLocation(table));
      List<String> objectsBefore = objects().stream().map(S3Object::key).sorted().toList();
      registerScopedHandlers(
          scopeOfThisWarehouse("db.*").withCatalog(new DeployedCatalog(deployed)));
      Map<String, String> theirs = new TreeMap<>(s3.icebergProperties());
      theirs.put("type", "rest");
      theirs.put("uri", lying.uri().toString());
      Map<String, Object> input = input(theirs);
      input.put("care", List.of("remove-orphans", "expire-snapshots"));

      ExecutionResult result = run(input);

      assertThat(result.status()).isEqualTo("FAILED");
      assertThat(result.states()).containsExactly("AcquireLease", "InvalidInput");
      assertThat(result.error()).isEqualTo(OutsideDeploymentScopeException.class.getName());
      assertThat(tree(result.cause()).get("errorMessage").asText())
          .startsWith(
              "The input's catalog_properties may not set type (differs from the deployed value),"
                  + " uri (differs from the deployed value): this deployment's catalog is fixed at"
                  + " deploy time (CATALOG_PROPERTIES)")
          .endsWith("; nothing was written");
      assertThat(leaseTableItemCount()).as("no lease, no job log record").isZero();
      assertInvocations(1, 0, 0, 0, 0, 0);
      assertThat(lying.requests()).as("the lying catalog was never asked").isEmpty();
      assertThat(objects().stream().map(S3Object::key).sorted().toList())
          .as("no object written or deleted")
          .isEqualTo(objectsBefore);
      assertThat(snapshots(table)).hasSize(snapshotsBefore);
    }
  }

  /**
   * The schedules' way once the catalog is deployed: no catalog_properties in the input. The job
   * runs on the deployed catalog, and every later state carries it (AcquireLease put it there).
   */
  @Test
  void withADeployedCatalogAnInputWithoutCatalogPropertiesCompactsOnIt() {
    Map<String, String> deployed = jdbcCatalog();
    Table table = createTable(deployed);
    int snapshotsBefore = snapshots(table).size();
    registerScopedHandlers(scopeOfThisWarehouse("db.*").withCatalog(new DeployedCatalog(deployed)));
    Map<String, Object> input = input(Map.of());
    input.remove("catalog_properties");

    ExecutionResult result = run(input);

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(snapshots(table())).hasSize(snapshotsBefore + 1);
    assertThat(lambda.payloads(COMMIT_SNAPSHOT))
        .allSatisfy(
            payload ->
                assertThat(
                        JSON.convertValue(
                            tree(payload).at("/job/catalog_properties"), TreeMap.class))
                    .isEqualTo(new TreeMap<>(deployed)));
  }

  /**
   * A caller allowed lambda:InvokeFunction skips AcquireLease: each function that reaches a table
   * or writes the work location refuses another catalog itself, before any read or write.
   */
  @Test
  void eachFunctionInvokedDirectlyWithAnotherCatalogRefusesIt() throws Exception {
    Map<String, String> deployed = jdbcCatalog();
    Table table = createTable(deployed);
    List<String> objectsBefore = objects().stream().map(S3Object::key).sorted().toList();
    DeploymentScope scope = scopeOfThisWarehouse("db.*").withCatalog(new DeployedCatalog(deployed));
    Map<String, String> theirs = Map.of("type", "rest", "uri", "http://127.0.0.1:9/");
    String work = "s3://" + bucket + "/warehouse/db/orders/_icecompact/job-0123456789ab";
    Map<String, Object> job =
        Map.of("job_id", "job-0123456789ab", "table", TABLE, "catalog_properties", theirs);
    Map<String, Object> group =
        Map.of(
            "plan_ref",
            Map.of("job_id", "job-0123456789ab", "table", TABLE, "work_location", work),
            "catalog_properties",
            theirs,
            "group_index",
            0,
            "attempt",
            1);
    Map<String, LambdaStep<?, ?>> handlers = new LinkedHashMap<>();
    Map<String, Object> payloads = new LinkedHashMap<>();
    handlers.put(PLAN_REWRITE, new PlanRewriteHandler(scope));
    payloads.put(PLAN_REWRITE, Map.of("job", job));
    handlers.put(REWRITE_GROUP, new RewriteGroupHandler(scope));
    payloads.put(REWRITE_GROUP, Map.of("group", group));
    handlers.put(RECORD_GROUP_FAILURE, new RecordGroupFailureHandler(scope));
    payloads.put(
        RECORD_GROUP_FAILURE, Map.of("group", group, "error", Map.of("Error", "X", "Cause", "{}")));
    handlers.put(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease(), scope));
    payloads.put(COMMIT_SNAPSHOT, Map.of("job", job, "plan", Map.of(), "lease", Map.of()));
    handlers.put(CARE_FOR_TABLE, new CareForTableHandler(leaseSteps.lease(), scope));
    payloads.put(
        CARE_FOR_TABLE,
        Map.of(
            "job",
            job,
            "lease",
            Map.of(),
            "work_location",
            work,
            "steps",
            List.of("remove-orphans")));
    handlers.put(SweepDefinition.ASSESS_TABLES, new AssessTablesHandler(scope));
    payloads.put(
        SweepDefinition.ASSESS_TABLES,
        Map.of(
            "sweep",
            Map.of("catalog_properties", theirs, "namespaces", List.of("db")),
            "execution_name",
            "sweep-1"));

    for (Map.Entry<String, LambdaStep<?, ?>> handler : handlers.entrySet()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThatThrownBy(
              () ->
                  handler
                      .getValue()
                      .handleRequest(
                          new ByteArrayInputStream(
                              json(payloads.get(handler.getKey()))
                                  .getBytes(StandardCharsets.UTF_8)),
                          out,
                          null))
          .as(handler.getKey())
          .isInstanceOf(OutsideDeploymentScopeException.class)
          .hasMessageStartingWith(
              "The input's catalog_properties may not set type (differs from the deployed value),"
                  + " uri (differs from the deployed value):");
    }
    assertThat(objects().stream().map(S3Object::key).sorted().toList())
        .as("no object written or deleted")
        .isEqualTo(objectsBefore);
  }

  private void assertRefusedInTheFirstState(ExecutionResult result, String message) {
    assertThat(result.status()).isEqualTo("FAILED");
    assertThat(result.states()).containsExactly("AcquireLease", "InvalidInput");
    assertThat(result.error()).isEqualTo(OutsideDeploymentScopeException.class.getName());
    JsonNode cause = tree(result.cause());
    assertThat(cause.get("errorMessage").asText()).isEqualTo(message);
    assertThat(leaseTableItemCount()).as("no lease, no job log record").isZero();
    assertInvocations(1, 0, 0, 0, 0, 0);
  }

  private List<S3Object> objects() {
    return s3.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream().toList();
  }

  /** Writes to the real stream and to the capture, so the build's output stays as it was. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream first;
    private final java.io.OutputStream second;

    TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }
  }
}
