package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.CARE_FOR_TABLE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.care.lambda.CareForTableHandler;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.scope.DeployedCatalog;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccessRole;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.testkit.FaultyS3.PolicyDecision;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.LocalSts;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import io.icecompact.worker.lambda.RecordGroupFailureHandler;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The deployment as the template makes it: every function's own credentials may read the warehouse
 * but write nothing (the S3 stand-in enforces a read-only policy on unsigned-session requests), and
 * each stage writes through {@code TableAccessRole} assumed with its table's session policy
 * (LocalSts, whose sessions the stand-in enforces). A whole job, care included, then succeeds with
 * every write allowed and under the table's folders; a function invoked directly with a work
 * location that is not one of the table's jobs' refuses it before it writes.
 */
class StateMachineTableSessionTest extends StateMachineTestBase {
  private static final String ROLE = "arn:aws:iam::123456789012:role/icecompact-table-access";
  private static final String NEIGHBOUR = "db.orders_archive";

  /** The SDK's attempts at one request (S3FileIO's retries included), as the fault tests count. */
  private static final int SDK_ATTEMPTS = 6;

  private static final List<String> WRITES =
      List.of("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload");

  /** What the function roles keep once writes go through the table's session: reads. */
  private static final String FUNCTION_ROLE_READS_ONLY =
      "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":"
          + "[\"s3:GetObject\",\"s3:GetObjectVersion\",\"s3:ListBucket\",\"s3:GetBucketLocation\","
          + "\"s3:ListBucketMultipartUploads\",\"s3:ListMultipartUploadParts\"],\"Resource\":\"*\"}]}";

  private LocalSts sts;
  private Map<String, String> catalog;
  private DeploymentScope scope;

  @BeforeEach
  void deployWithTheTableAccessRole() {
    sts = new LocalSts(faults).start();
    catalog = faultyJdbcCatalog();
    createTable(catalog);
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(NEIGHBOUR), SHAPE);
    scope =
        DeploymentScope.parse("db.*", "s3://" + bucket + "/warehouse/")
            .withCatalog(new DeployedCatalog(catalog))
            .withTableAccessRole(new TableAccessRole(ROLE, sts.endpoint()));
    registerScopedHandlers(scope);
  }

  @AfterEach
  void stopEnforcing() {
    faults.stopEnforcing();
    faults.clearDecisions();
    sts.close();
  }

  @Test
  void aWholeJobWritesOnlyThroughItsTablesSessionsAndOnlyUnderItsFolders() {
    Table table = table();
    Map<String, Long> rows = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    String location = table.location();

    ExecutionResult result =
        runWithReadOnlyFunctionRoles(
            List.of("rewrite-manifests", "expire-snapshots", "remove-orphans"));

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(result.outputJson().at("/care/failed").asInt())
        .as("care ran under its session: %s", result.output())
        .isZero();
    assertThat(faults.decisions())
        .as("nothing was denied: no stage wrote with its function's own credentials")
        .allMatch(PolicyDecision::allowed);
    List<PolicyDecision> writes =
        faults.decisions().stream().filter(d -> WRITES.contains(d.action())).toList();
    String prefix = "arn:aws:s3:::" + bucket + "/warehouse/db/orders/";
    assertThat(writes).allSatisfy(d -> assertThat(d.resource()).startsWith(prefix));
    assertThat(writes).anyMatch(d -> d.resource().startsWith(prefix + "data/"));
    assertThat(writes).anyMatch(d -> d.resource().startsWith(prefix + "metadata/"));
    assertThat(writes).anyMatch(d -> d.resource().startsWith(prefix + "_icecompact/"));
    assertThat(sts.assumed())
        .extracting(LocalSts.AssumedRole::sessionName)
        .contains(
            "icecompact-planner", "icecompact-worker", "icecompact-committer", "icecompact-care");
    assertThat(sts.assumed()).allMatch(a -> a.roleArn().equals(ROLE));
    assertThat(snapshots(table())).hasSizeGreaterThan(snapshotsBefore);
    assertThat(LiveRows.multiset(table())).isEqualTo(rows);
    assertThat(location).isEqualTo(table().location());
  }

  /**
   * The failure paths write too: a group whose input cannot be read fails after its retries and
   * RecordGroupFailure stores why (its own session, the job directory only); the job commits the
   * other groups.
   */
  @Test
  void aFailedGroupIsRecordedThroughItsOwnSessionAndTheRestCommits() {
    Table table = table();
    Map<String, Long> rows = LiveRows.multiset(table);
    String victim = table.newScan().planFiles().iterator().next().file().location();
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys(Pattern.quote(victim.substring(victim.lastIndexOf('/')))));

    ExecutionResult result = runWithReadOnlyFunctionRoles(List.of());

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertJobStatus(result.outputJson(), "PARTIAL");
    assertThat(result.outputJson().get("failed_groups").asInt()).isEqualTo(1);
    assertThat(faults.decisions()).allMatch(PolicyDecision::allowed);
    assertThat(sts.assumed())
        .filteredOn(a -> a.sessionName().equals("icecompact-recorder"))
        .singleElement()
        .satisfies(a -> assertThat(a.policy()).contains("/_icecompact/"));
    assertThat(faults.decisions())
        .filteredOn(d -> WRITES.contains(d.action()))
        .anyMatch(d -> d.resource().endsWith(".failed.json"))
        .allSatisfy(
            d ->
                assertThat(d.resource())
                    .startsWith("arn:aws:s3:::" + bucket + "/warehouse/db/orders/"));
    faults.clearRules();
    assertThat(LiveRows.multiset(table())).isEqualTo(rows);
  }

  /**
   * A worker attempt that fails after it recorded an output is retried; the committer deletes what
   * the failed attempt may have written, under the committer's session.
   */
  @Test
  void aFailedAttemptsOutputsAreDeletedUnderTheSession() {
    Map<String, Long> rows = LiveRows.multiset(table());
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown())
            .onMethod("PUT")
            .onKeys("/data/.*/00001-1-.*-00001\\.parquet$")
            .times(SDK_ATTEMPTS));

    ExecutionResult result = runWithReadOnlyFunctionRoles(List.of());

    assertThat(result.status()).as("%s %s", result.error(), result.cause()).isEqualTo("SUCCEEDED");
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected()).hasSize(SDK_ATTEMPTS);
    assertThat(faults.decisions()).allMatch(PolicyDecision::allowed);
    assertThat(faults.decisions())
        .as("the failed attempt's output deleted")
        .anyMatch(
            d ->
                d.action().equals("s3:DeleteObject")
                    && d.resource().contains("/db/orders/data/")
                    && d.resource().contains("00001-1-"));
    assertThat(LiveRows.multiset(table())).isEqualTo(rows);
  }

  /**
   * A caller allowed lambda:InvokeFunction names a work location inside the neighbour table's
   * folders, which ALLOWED_LOCATIONS (the warehouse prefix) admits: each function that writes job
   * documents refuses it, naming the shape a job directory has, and nothing is written.
   */
  @Test
  void aWorkLocationInAnotherTablesFoldersIsRefusedByEachFunctionInvokedDirectly() {
    String jobId = "job-0123456789ab";
    String neighbours = "s3://" + bucket + "/warehouse/db/orders_archive";
    List<String> objectsBefore = objects();
    Map<String, Object> job = Map.of("job_id", jobId, "table", TABLE);
    Map<String, Object> planRef =
        Map.of(
            "job_id",
            jobId,
            "table",
            TABLE,
            "work_location",
            neighbours + "/metadata",
            "plan_sha256",
            "0".repeat(64));
    Map<String, Object> group = Map.of("plan_ref", planRef, "group_index", 0, "attempt", 1);
    Map<String, Object> direct =
        Map.of(
            REWRITE_GROUP,
            Map.of("group", group),
            RECORD_GROUP_FAILURE,
            Map.of("group", group, "error", Map.of("Error", "X", "Cause", "{}")),
            COMMIT_SNAPSHOT,
            Map.of(
                "job",
                job,
                "plan",
                Map.of("plan_ref", planRef),
                "lease",
                Map.of("table", TABLE, "owner", "x", "token", 1)),
            CARE_FOR_TABLE,
            Map.of(
                "job",
                job,
                "lease",
                Map.of("table", TABLE, "owner", "x", "token", 1),
                "work_location",
                neighbours + "/_icecompact/" + jobId,
                "steps",
                List.of("remove-orphans")));
    Map<String, LambdaStep<?, ?>> handlers =
        Map.of(
            REWRITE_GROUP, new RewriteGroupHandler(scope),
            RECORD_GROUP_FAILURE, new RecordGroupFailureHandler(scope),
            COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease(), scope),
            CARE_FOR_TABLE, new CareForTableHandler(leaseSteps.lease(), scope));
    for (Map.Entry<String, LambdaStep<?, ?>> handler : handlers.entrySet()) {
      byte[] payload = json(direct.get(handler.getKey())).getBytes(StandardCharsets.UTF_8);
      assertThatThrownBy(
              () ->
                  handler
                      .getValue()
                      .handleRequest(
                          new ByteArrayInputStream(payload), new ByteArrayOutputStream(), null))
          .as(handler.getKey())
          .isInstanceOf(OutsideDeploymentScopeException.class)
          .hasMessageStartingWith("Work location " + neighbours)
          .hasMessageContaining("is not a job directory of table db.orders")
          .hasMessageEndingWith("nothing was written");
    }
    assertThat(objects()).as("no object written or deleted").isEqualTo(objectsBefore);
  }

  /**
   * One execution on the deployed catalog (no catalog_properties) with {@code care} steps, while
   * the stand-in holds the functions' own credentials to reads.
   */
  private ExecutionResult runWithReadOnlyFunctionRoles(List<String> care) {
    Map<String, Object> input = input(Map.of());
    input.remove("catalog_properties");
    if (!care.isEmpty()) {
      input.put("care", care);
    }
    faults.enforce(FUNCTION_ROLE_READS_ONLY);
    try {
      return run(input);
    } finally {
      faults.stopEnforcing();
    }
  }

  private List<String> objects() {
    return s3.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
        .map(S3Object::key)
        .sorted()
        .toList();
  }
}
