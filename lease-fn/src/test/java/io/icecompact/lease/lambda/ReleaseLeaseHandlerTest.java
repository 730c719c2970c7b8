package io.icecompact.lease.lambda;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.CaughtError;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.lease.JobLog;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * ReleaseLease and ReleaseLeaseAfterFailure against dynalite: the job log entry names the execution
 * (the lease's owner) and expires 90 days after the job ended, whether the job reached a result or
 * failed.
 */
class ReleaseLeaseHandlerTest {
  static final String LEASES = "icecompact-leases";
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  static final String EXECUTION =
      "arn:aws:states:eu-west-1:123456789012:execution:icecompact-compaction:e-42";

  private static LocalDynamoDb dynamo;
  private static int tableCounter;

  private MutableClock clock;
  private LeaseSteps steps;
  private String table;

  @BeforeAll
  static void startDynamo() {
    dynamo = new LocalDynamoDb();
    LeaseTableSchema.create(dynamo.client(), LEASES);
  }

  @AfterAll
  static void stopDynamo() {
    dynamo.close();
  }

  @BeforeEach
  void newTable() {
    clock = new MutableClock(T0);
    steps = LeaseSteps.of(dynamo.client(), LEASES, clock);
    table = "analytics.orders_" + (++tableCounter);
  }

  @Test
  void aJobWithAResultIsLoggedWithItsExecutionAndCountsAndReleasesTheLease() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));
    clock.advance(Duration.ofSeconds(42));
    JobResult result =
        JobResult.builder("job-1", table, JobStatus.COMMITTED)
            .snapshotIds(List.of(7L))
            .rewrittenDataFilesCount(12)
            .addedDataFilesCount(3)
            .rewrittenBytesCount(4096)
            .removedDeleteFilesCount(2)
            .rewrittenGroups(3)
            .verification(new JobResult.Verification(true, List.of()))
            .durationMillis(9000)
            .groups(null)
            .build()
            .summary("s3://work/" + table + "/job-1/result.json");

    JsonNode output = release(lease, Map.of("result", result));

    assertThat(output.get("released").asBoolean()).isTrue();
    JobLogEntry entry = steps.jobLog().find(table, "job-1").orElseThrow();
    assertThat(entry.status()).isEqualTo("COMMITTED");
    assertThat(entry.executionArn()).isEqualTo(EXECUTION);
    assertThat(entry.startedAtMillis()).isEqualTo(T0.toEpochMilli());
    assertThat(entry.durationMillis()).isEqualTo(42_000);
    assertThat(entry.snapshotIds()).containsExactly(7L);
    assertThat(entry.counts())
        .containsEntry("rewritten_data_files_count", 12L)
        .containsEntry("rewritten_groups", 3L);
    assertThat(entry.resultLocation()).isEqualTo("s3://work/" + table + "/job-1/result.json");
    assertThat(entry.error()).isNull();
    assertThat(expiresAt("job-1"))
        .isEqualTo(T0.plusSeconds(42).plus(Duration.ofDays(90)).getEpochSecond());
  }

  @Test
  void aFailedExecutionIsLoggedAsFailedWithTheErrorsNameAndMessage() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));
    clock.advance(Duration.ofSeconds(5));
    // what a Catch passes on for a Lambda error: its type, and Lambda's error document as the cause
    CaughtError error =
        new CaughtError(
            TransientException.class.getName(),
            "{\"errorMessage\":\"S3 503 Slow Down reading plan.json\",\"errorType\":\""
                + TransientException.class.getName()
                + "\",\"stackTrace\":[]}");

    JsonNode output = release(lease, Map.of("error", error));

    assertThat(output.get("released").asBoolean()).isTrue();
    JobLogEntry entry = steps.jobLog().find(table, "job-1").orElseThrow();
    assertThat(entry.status()).isEqualTo("FAILED");
    assertThat(entry.error())
        .isEqualTo(
            "io.icecompact.core.error.TransientException: S3 503 Slow Down reading plan.json");
    assertThat(entry.executionArn()).isEqualTo(EXECUTION);
    assertThat(entry.durationMillis()).isEqualTo(5_000);
    assertThat(entry.counts()).isEmpty();
    assertThat(expiresAt("job-1"))
        .isEqualTo(T0.plusSeconds(5).plus(Duration.ofDays(90)).getEpochSecond());
    // and it is counted: one EMF line with JobsFailed 1, the table as dimension and the error's
    // name
    JsonNode emf =
        printed.stream()
            .filter(line -> line.contains("\"_aws\""))
            .map(this::json)
            .findFirst()
            .orElseThrow();
    assertThat(emf.get("Table").asText()).isEqualTo(table);
    assertThat(emf.get("JobsFailed").asInt()).isEqualTo(1);
    assertThat(emf.get("error").asText()).isEqualTo(TransientException.class.getName());
    assertThat(emf.get("JobDuration").asLong()).isEqualTo(5_000);
  }

  /**
   * Issue 41: a job that commits while its orphan removal refuses (a table that may share its files
   * cannot be read) and its expiry fails looked green; now both are counted, logged as a care line
   * for the alarm, and kept in the job log with why.
   */
  @Test
  void aCommittedJobWhoseCareRefusedAndFailedCountsBothAndKeepsWhy() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));
    Map<String, Object> result =
        committedWithCare(
            Map.of(
                "failed",
                2,
                "steps",
                List.of(
                    Map.of("step", "delete-cleanup", "status", "DONE", "summary", "nothing to do"),
                    Map.of(
                        "step",
                        "expire-snapshots",
                        "status",
                        "FAILED",
                        "summary",
                        "S3 503 Slow Down"),
                    Map.of(
                        "step",
                        "remove-orphans",
                        "status",
                        "REFUSED",
                        "summary",
                        "Refusing remove-orphans on " + table + ": table ops.x cannot be loaded")),
                "location",
                "s3://work/care.json"));

    release(lease, Map.of("result", result));

    JobLogEntry entry = steps.jobLog().find(table, "job-1").orElseThrow();
    assertThat(entry.status()).isEqualTo("COMMITTED");
    assertThat(entry.care())
        .isEqualTo(
            "expire-snapshots FAILED: S3 503 Slow Down; remove-orphans REFUSED: Refusing"
                + " remove-orphans on "
                + table
                + ": table ops.x cannot be loaded");
    JsonNode emf = printedJson("\"_aws\"");
    assertThat(emf.get("CareRefused").asInt()).isEqualTo(1);
    assertThat(emf.get("CareFailed").asInt()).isEqualTo(1);
    assertThat(emf.get("JobsCommitted").asInt()).isEqualTo(1);
    JsonNode careLine = printedJson("\"icecompact\":\"care\"");
    assertThat(careLine.get("table").asText()).isEqualTo(table);
    assertThat(careLine.get("refused").asInt()).isEqualTo(1);
    assertThat(careLine.get("failed").asInt()).isEqualTo(1);
  }

  /** The CareFailed state's shape: the function failed as a whole, every listed step counted. */
  @Test
  void aCareFunctionThatFailedAsAWholeCountsEveryListedStep() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));
    Map<String, Object> result =
        committedWithCare(Map.of("failed", 2, "steps", List.of(), "error", "States.Timeout"));

    release(lease, Map.of("result", result));

    assertThat(steps.jobLog().find(table, "job-1").orElseThrow().care())
        .isEqualTo("the care function failed (States.Timeout): 2 step(s) did not run");
    JsonNode emf = printedJson("\"_aws\"");
    assertThat(emf.get("CareRefused").asInt()).isZero();
    assertThat(emf.get("CareFailed").asInt()).isEqualTo(2);
  }

  @Test
  void aJobWhoseCareWasAllDoneHasNoCareLineAndZeroCounts() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));
    Map<String, Object> result =
        committedWithCare(
            Map.of(
                "failed",
                0,
                "steps",
                List.of(
                    Map.of("step", "expire-snapshots", "status", "DONE", "summary", "2 expired"))));

    release(lease, Map.of("result", result));

    assertThat(steps.jobLog().find(table, "job-1").orElseThrow().care()).isNull();
    assertThat(printed).noneMatch(line -> line.contains("\"icecompact\":\"care\""));
    assertThat(printedJson("\"_aws\"").get("CareRefused").asInt()).isZero();
  }

  /** A COMMITTED result as the state machine holds it, with the care states' {@code care}. */
  private Map<String, Object> committedWithCare(Map<String, Object> care) {
    Map<String, Object> result =
        new HashMap<>(
            JobJson.mapper()
                .convertValue(
                    JobResult.builder("job-1", table, JobStatus.COMMITTED)
                        .snapshotIds(List.of(7L))
                        .verification(new JobResult.Verification(true, List.of()))
                        .groups(null)
                        .build(),
                    Map.class));
    result.put("care", care);
    return result;
  }

  private JsonNode printedJson(String containing) {
    return printed.stream()
        .filter(line -> line.contains(containing))
        .map(this::json)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line with " + containing + " in " + printed));
  }

  private JsonNode json(String line) {
    try {
      return JobJson.mapper().readTree(line);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aStepFunctionsTimeoutIsLoggedWithItsPlainCause() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));

    release(
        lease,
        Map.of("error", new CaughtError("States.Timeout", "Task timed out after 900 seconds")));

    assertThat(steps.jobLog().recent(table, 5))
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.status()).isEqualTo("FAILED");
              assertThat(entry.error())
                  .isEqualTo("States.Timeout: Task timed out after 900 seconds");
            });
  }

  /**
   * Step Functions retries ReleaseLease when an invocation fails: the job's line and its EMF
   * metrics are printed by the invocation that released the lease, once, not by the one that failed
   * to, so the metric filters count the job once.
   */
  @Test
  void aReleaseRetriedAfterAFailurePrintsTheJobsLinesOnce() throws IOException {
    LeaseGrant lease = steps.lease().acquire(table, EXECUTION, Duration.ofHours(2));
    AtomicInteger updates = new AtomicInteger();
    ExecutionInterceptor firstReleaseFails =
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes a) {
            if (context.request() instanceof UpdateItemRequest && updates.getAndIncrement() == 0) {
              throw SdkClientException.create("connection reset (injected)");
            }
          }
        };
    JobResult result =
        JobResult.builder("job-1", table, JobStatus.COMMITTED)
            .verification(new JobResult.Verification(true, List.of()))
            .groups(null)
            .build()
            .summary("s3://work/" + table + "/job-1/result.json");
    List<String> lines = new java.util.ArrayList<>();
    try (DynamoDbClient failing = dynamo.newClient(firstReleaseFails)) {
      LeaseSteps failingSteps = LeaseSteps.of(failing, LEASES, clock);
      assertThatThrownBy(() -> release(failingSteps, lease, Map.of("result", result)))
          .hasMessageContaining("connection reset (injected)");
      lines.addAll(printed);
      JsonNode output = release(failingSteps, lease, Map.of("result", result));
      lines.addAll(printed);
      assertThat(output.get("released").asBoolean()).isTrue();
    }

    assertThat(lines).filteredOn(line -> line.contains("\"icecompact\":\"job\"")).hasSize(1);
    assertThat(lines).filteredOn(line -> line.contains("\"_aws\"")).hasSize(1);
    assertThat(steps.lease().acquire(table, "another execution", Duration.ofHours(2)).acquired())
        .as("the lease was released")
        .isTrue();
  }

  /** The lines the last {@link #release} printed on stdout (the function's log group). */
  private List<String> printed = List.of();

  /**
   * Invokes the handler with the job, lease and settings as the state machine passes them, plus
   * {@code more}.
   */
  private JsonNode release(LeaseGrant lease, Map<String, Object> more) throws IOException {
    return release(steps, lease, more);
  }

  /** {@link #release(LeaseGrant, Map)} by a handler over {@code handlerSteps}. */
  private JsonNode release(LeaseSteps handlerSteps, LeaseGrant lease, Map<String, Object> more)
      throws IOException {
    Map<String, Object> input = new HashMap<>(more);
    input.put(
        "job", new JobSpec("job-1", table, Map.of("type", "glue"), Map.of(), null, null, null));
    input.put("lease", lease);
    input.put("settings", new LeaseSettings(10, 7200, T0.toEpochMilli(), List.of(), false));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream original = System.out;
    // the handler's outcome line and EMF line go to stdout (the function's log group): kept out of
    // the test's
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    System.setOut(new PrintStream(logged, true, UTF_8));
    try {
      new ReleaseLeaseHandler(handlerSteps)
          .handleRequest(
              new ByteArrayInputStream(JobJson.mapper().writeValueAsBytes(input)),
              out,
              LocalLambda.context("ReleaseLease", "request-1"));
    } finally {
      System.setOut(original);
      printed = logged.toString(UTF_8).lines().toList();
    }
    return JobJson.mapper().readTree(out.toByteArray());
  }

  private long expiresAt(String jobId) {
    JobLogEntry entry = steps.jobLog().find(table, jobId).orElseThrow();
    Map<String, AttributeValue> item =
        dynamo
            .client()
            .query(
                b ->
                    b.tableName(LEASES)
                        .keyConditionExpression("pk = :t")
                        .expressionAttributeValues(Map.of(":t", AttributeValue.fromS(table))))
            .items()
            .stream()
            .filter(i -> i.containsKey("job_id") && i.get("job_id").s().equals(entry.jobId()))
            .findFirst()
            .orElseThrow();
    return Long.parseLong(item.get(JobLog.EXPIRES_AT).n());
  }
}
