package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.ACQUIRE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.CARE_FOR_TABLE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.RELEASE_LEASE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.care.lambda.CareForTableHandler;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.lease.lambda.AcquireLeaseHandler;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.EveryTableReaches;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.worker.lambda.LeaseHeartbeat;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
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

  /** Every function with the deployment's scope, as the template's environment gives it. */
  private void registerScopedHandlers(DeploymentScope scope) {
    lambda.register(ACQUIRE_LEASE, new AcquireLeaseHandler(leaseSteps, scope));
    lambda.register(PLAN_REWRITE, new PlanRewriteHandler(scope));
    lambda.register(
        REWRITE_GROUP, new RewriteGroupHandler(scope, new LeaseHeartbeat(leaseSteps.lease())));
    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease(), scope));
    lambda.register(CARE_FOR_TABLE, new CareForTableHandler(leaseSteps.lease(), scope));
  }

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
