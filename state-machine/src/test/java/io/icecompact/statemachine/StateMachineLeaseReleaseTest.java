package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.RELEASE_LEASE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.icecompact.core.error.TransientException;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.lambda.ReleaseLeaseHandler;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * DynamoDB browns out after the commit: the real ReleaseLease handler meets a lease table that
 * answers every request with a 500 (InternalServerError), and raises TransientException as it does
 * on AWS. ReleaseLease retries it on the throttling schedule (12 retries, about 10 minutes on AWS):
 * a brownout shorter than that is absorbed. A longer one no longer fails a committed job: the
 * execution succeeds with the job's result, which says the lease was not released (it expires by
 * its TTL).
 */
class StateMachineLeaseReleaseTest extends StateMachineTestBase {
  /** ReleaseLease's retries of TransientException in the definition (the throttling schedule's). */
  private static final int RETRIES = 12;

  private HttpServer brownout;
  private DynamoDbClient brownoutClient;

  /** An endpoint in DynamoDB's wire format that answers every request 500 InternalServerError. */
  @BeforeEach
  void startBrownout() throws IOException {
    brownout = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    brownout.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] answer =
              "{\"__type\":\"com.amazonaws.dynamodb.v20120810#InternalServerError\",\"message\":\"injected brownout\"}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
          exchange.sendResponseHeaders(500, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    brownout.start();
    brownoutClient =
        DynamoDbClient.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + brownout.getAddress().getPort()))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
            .httpClient(UrlConnectionHttpClient.create())
            // the SDK's own retries are spent: each invocation fails at once, as after them on AWS
            .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
            .build();
  }

  @AfterEach
  void stopBrownout() {
    brownoutClient.close();
    brownout.stop(0);
  }

  /**
   * ReleaseLease runs the real handler on the browned-out lease table for its first {@code failing}
   * invocations.
   */
  private AtomicInteger releaseInBrownoutFor(int failing) {
    ReleaseLeaseHandler down =
        new ReleaseLeaseHandler(LeaseSteps.of(brownoutClient, leaseTable, Clock.systemUTC()));
    ReleaseLeaseHandler up = new ReleaseLeaseHandler(leaseSteps);
    AtomicInteger calls = new AtomicInteger();
    lambda.register(
        RELEASE_LEASE,
        (in, out, context) -> {
          if (calls.incrementAndGet() <= failing) {
            down.handleRequest(in, out, context);
          } else {
            up.handleRequest(in, out, context);
          }
        });
    return calls;
  }

  @Test
  void aBrownoutLongerThanTheOldThreeRetriesIsAbsorbedAndTheLeaseReleased() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();
    AtomicInteger calls = releaseInBrownoutFor(6);

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.has("lease_release")).as("released: nothing to report").isFalse();
    assertThat(calls).hasValue(7);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("COMMITTED");
    assertThat(leaseItem()).containsKey("released_at");
  }

  @Test
  void aBrownoutOutlastingEveryRetryLeavesTheCommittedJobSucceededAndSaysTheLeaseWasNotReleased() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicInteger calls = releaseInBrownoutFor(Integer.MAX_VALUE);

    ExecutionResult result = run(input(catalog));

    List<String> path = new java.util.ArrayList<>(COMPACTED_PATH);
    path.add(path.indexOf("Done"), "LeaseNotReleased");
    assertSucceeded(result, path);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    JsonNode release = output.get("lease_release");
    assertThat(release).as("output %s", output).isNotNull();
    assertThat(release.get("released").asBoolean()).isFalse();
    assertThat(release.get("error").asText()).isEqualTo(TransientException.class.getName());
    assertThat(calls).as("the first invocation and every retry").hasValue(1 + RETRIES);

    // the commit stands
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), output.get("job_id").asText());
    assertThat(LiveRows.multiset(table())).isEqualTo(rowsBefore);
    // the lease is still the execution's, unreleased, until the expiry the result names
    Map<String, AttributeValue> lease = leaseItem();
    assertThat(lease.get("owner").s()).isEqualTo(executionIds().get(0));
    assertThat(lease).doesNotContainKey("released_at");
    assertThat(number(lease, "expires_at"))
        .isEqualTo(release.get("lease_expires_at_millis").asLong())
        .isGreaterThan(System.currentTimeMillis());
    // nothing reached the lease table
    assertThat(jobLog()).isEmpty();
  }
}
