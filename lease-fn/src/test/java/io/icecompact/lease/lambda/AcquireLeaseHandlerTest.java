package io.icecompact.lease.lambda;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.LeaseStoreException;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * AcquireLease in this JVM against dynalite, with the deployed function's logging (module
 * lambda-logging: log4j2, the Lambda appender, the JSON event template) and its stdout captured.
 * Outside Lambda the appender writes to stdout, where the EMF lines go too: in Lambda both end up
 * in the function's log group.
 */
class AcquireLeaseHandlerTest {
  static final String LEASES = "icecompact-leases";
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  private static LocalDynamoDb dynamo;
  private static int tableCounter;

  private MutableClock clock;
  private AcquireLeaseHandler handler;
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
    handler = new AcquireLeaseHandler(LeaseSteps.of(dynamo.client(), LEASES, clock));
    table = "analytics.orders_" + (++tableCounter);
  }

  @Test
  void anAcquisitionLogsOneJsonObjectPerLineWithTheJobsKeysAndCountsLeaseAcquired()
      throws IOException {
    Invocation run = acquire(handler, "job-1", "exec-1", "request-1", 3600);

    assertThat(run.output().get("lease").get("acquired").asBoolean()).isTrue();
    JsonNode line = run.onlyLogLineOf(AcquireLeaseHandler.class);
    assertThat(line.get("level").asText()).isEqualTo("INFO");
    assertThat(line.get("message").asText())
        .isEqualTo("Acquired the lease on " + table + " (token 1) until " + T0.plusSeconds(3600));
    assertThat(line.get("job_id").asText()).isEqualTo("job-1");
    assertThat(line.get("table").asText()).isEqualTo(table);
    assertThat(line.get("AWSRequestId").asText()).isEqualTo("request-1");
    assertThat(Instant.parse(line.get("timestamp").asText()))
        .isBetween(Instant.now().minusSeconds(60), Instant.now());

    assertLeaseMetrics(run.onlyEmf(), "job-1", "ACQUIRED", 1, 0, 0);
    assertThat(MDC.getCopyOfContextMap())
        .as("the job's keys are gone after the invocation")
        .isNullOrEmpty();
  }

  @Test
  void aLeaseHeldByAnotherExecutionIsCountedAsLeaseHeld() throws IOException {
    acquire(handler, "job-1", "exec-1", "request-1", 3600);

    Invocation second = acquire(handler, "job-2", "exec-2", "request-2", 3600);

    assertThat(second.output().get("lease").get("acquired").asBoolean()).isFalse();
    JsonNode line = second.onlyLogLineOf(AcquireLeaseHandler.class);
    assertThat(line.get("message").asText())
        .isEqualTo(
            "Lease on "
                + table
                + " is held by exec-1 until "
                + T0.plusSeconds(3600)
                + ": this execution does not compact");
    assertThat(line.get("job_id").asText()).isEqualTo("job-2");
    assertThat(line.get("AWSRequestId").asText()).isEqualTo("request-2");
    assertLeaseMetrics(second.onlyEmf(), "job-2", "HELD_BY_ANOTHER", 0, 0, 1);
  }

  @Test
  void takingOverALeaseThatExpiredUnreleasedIsCountedAsATakeover() throws IOException {
    acquire(handler, "job-1", "exec-1", "request-1", 60);
    clock.advance(Duration.ofSeconds(61)); // exec-1 never released it

    Invocation second = acquire(handler, "job-2", "exec-2", "request-2", 60);

    assertThat(second.output().get("lease").get("took_over_from").asText()).isEqualTo("exec-1");
    JsonNode line = second.onlyLogLineOf(AcquireLeaseHandler.class);
    assertThat(line.get("level").asText()).isEqualTo("WARN");
    assertThat(line.get("message").asText())
        .isEqualTo(
            "Took over the lease on "
                + table
                + " (token 2): exec-1 let it expire without releasing it");
    assertLeaseMetrics(second.onlyEmf(), "job-2", "TOOK_OVER_EXPIRED", 1, 1, 0);
  }

  @Test
  void aFailureIsLoggedWithTheJobsKeysAndTheNextInvocationDoesNotInheritThem() throws IOException {
    AcquireLeaseHandler broken =
        new AcquireLeaseHandler(LeaseSteps.of(dynamo.client(), "no-such-table", clock));
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    assertThatThrownBy(
            () -> capture(stdout, () -> invoke(broken, "job-1", "exec-1", "request-1", 60)))
        .isInstanceOf(LeaseStoreException.class);

    JsonNode error = new Invocation(null, lines(stdout)).onlyLogLineOf(InvocationLogContext.class);
    assertThat(error.get("level").asText()).isEqualTo("ERROR");
    assertThat(error.get("message").asText())
        .startsWith("AcquireLease failed: " + LeaseStoreException.class.getName());
    assertThat(error.get("job_id").asText()).isEqualTo("job-1");
    assertThat(error.get("table").asText()).isEqualTo(table);
    assertThat(error.get("errorType").asText()).isEqualTo(LeaseStoreException.class.getName());
    assertThat(error.get("stackTrace").asText())
        .contains("at io.icecompact.lease.TableLease.acquire");

    // Same thread, next job: a warm container must not stamp its lines with the failed job's id.
    Invocation next = acquire(handler, "job-2", "exec-2", "request-2", 60);
    assertThat(next.logLines())
        .isNotEmpty()
        .allSatisfy(
            line -> {
              assertThat(line.get("job_id").asText()).isEqualTo("job-2");
              assertThat(line.get("AWSRequestId").asText()).isEqualTo("request-2");
            });
  }

  /** The EMF document of one acquisition at the test clock's time. */
  private void assertLeaseMetrics(
      JsonNode emf, String jobId, String outcome, int acquired, int takeovers, int held) {
    JsonNode directive = emf.get("_aws").get("CloudWatchMetrics").get(0);
    assertThat(directive.get("Namespace").asText()).isEqualTo("icecompact");
    assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Table\"]]");
    List<String> names = new ArrayList<>();
    directive
        .get("Metrics")
        .forEach(
            m -> {
              names.add(m.get("Name").asText());
              assertThat(m.get("Unit").asText()).isEqualTo("Count");
            });
    assertThat(names).containsExactly("LeaseAcquired", "LeaseTakeovers", "LeaseHeld");
    assertThat(emf.get("_aws").get("Timestamp").asLong()).isEqualTo(clock.millis());
    assertThat(emf.get("Table").asText()).isEqualTo(table);
    assertThat(emf.get("job_id").asText()).isEqualTo(jobId);
    assertThat(emf.get("lease_outcome").asText()).isEqualTo(outcome);
    assertThat(emf.get("LeaseAcquired").asInt()).isEqualTo(acquired);
    assertThat(emf.get("LeaseTakeovers").asInt()).isEqualTo(takeovers);
    assertThat(emf.get("LeaseHeld").asInt()).isEqualTo(held);
  }

  // ---- invoking and capturing ----

  /**
   * The handler's output and every line it printed, each parsed (a line that is no JSON object
   * fails).
   */
  record Invocation(JsonNode output, List<JsonNode> lines) {
    List<JsonNode> logLines() {
      return lines.stream().filter(l -> l.has("level")).toList();
    }

    JsonNode onlyLogLineOf(Class<?> logger) {
      List<JsonNode> of =
          logLines().stream()
              .filter(l -> l.get("logger").asText().equals(logger.getName()))
              .toList();
      assertThat(of).as("log lines of %s in %s", logger.getName(), lines).hasSize(1);
      return of.get(0);
    }

    JsonNode onlyEmf() {
      List<JsonNode> emf = lines.stream().filter(l -> l.has("_aws")).toList();
      assertThat(emf).as("EMF lines in %s", lines).hasSize(1);
      return emf.get(0);
    }
  }

  private Invocation acquire(
      AcquireLeaseHandler target, String jobId, String owner, String requestId, int ttl)
      throws IOException {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    JsonNode output = capture(stdout, () -> invoke(target, jobId, owner, requestId, ttl));
    return new Invocation(output, lines(stdout));
  }

  private JsonNode invoke(
      AcquireLeaseHandler target, String jobId, String owner, String requestId, int ttl)
      throws IOException {
    Map<String, Object> input =
        Map.of(
            "table", table,
            "catalog_properties", Map.of("type", "glue"),
            "job_id", jobId,
            "lease_ttl_seconds", ttl);
    byte[] payload = JSON.writeValueAsBytes(Map.of("input", input, "execution_id", owner));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    target.handleRequest(
        new ByteArrayInputStream(payload), out, LocalLambda.context("AcquireLease", requestId));
    return JSON.readTree(out.toByteArray());
  }

  interface Body {
    JsonNode run() throws IOException;
  }

  /**
   * Runs {@code body} with System.out going to {@code stdout} (both the log appender and the EMF
   * lines).
   */
  private static JsonNode capture(ByteArrayOutputStream stdout, Body body) throws IOException {
    PrintStream original = System.out;
    System.setOut(new PrintStream(stdout, true, UTF_8));
    try {
      return body.run();
    } finally {
      System.out.flush();
      System.setOut(original);
    }
  }

  private static List<JsonNode> lines(ByteArrayOutputStream stdout) throws IOException {
    List<JsonNode> parsed = new ArrayList<>();
    for (String line : stdout.toString(UTF_8).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode node = JSON.readTree(line);
      assertThat(node.isObject()).as("one JSON object per line: %s", line).isTrue();
      parsed.add(node);
    }
    return parsed;
  }
}
