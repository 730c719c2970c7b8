package io.icecompact.lease;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.icecompact.core.error.TransientException;
import io.icecompact.testkit.LocalDynamoDb;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * How DynamoDB failures surface. dynalite cannot throttle or fail with a 5xx, so those answers come
 * from a tiny HTTP endpoint that answers every request with one error in DynamoDB's wire format.
 */
class DynamoFailuresTest {

  private static DynamoDbClient clientFor(URI endpoint) {
    return DynamoDbClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
        .httpClient(UrlConnectionHttpClient.create())
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  /**
   * Runs {@code body} against an endpoint that answers every request with {@code status} and {@code
   * type}.
   */
  private static void withFailingEndpoint(
      int status, String type, java.util.function.Consumer<DynamoDbClient> body) throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] answer =
              ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
                      + type
                      + "\",\"message\":\"injected "
                      + type
                      + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
          exchange.sendResponseHeaders(status, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    server.start();
    try (DynamoDbClient client =
        clientFor(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))) {
      body.accept(client);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void throttlingIsTransient() throws Exception {
    withFailingEndpoint(
        400,
        "ProvisionedThroughputExceededException",
        client ->
            assertThatThrownBy(
                    () ->
                        new TableLease(client, "leases", Clock.systemUTC())
                            .acquire("db.t", "o", Duration.ofMinutes(1)))
                .isInstanceOf(TransientException.class)
                .hasMessageStartingWith(
                    "acquiring the lease on db.t for o: ProvisionedThroughputExceededException"));
  }

  @Test
  void aServerErrorIsTransient() throws Exception {
    withFailingEndpoint(
        500,
        "InternalServerError",
        client -> {
          assertThatThrownBy(
                  () ->
                      new TableLease(client, "leases", Clock.systemUTC()).checkHeld("db.t", "o", 1))
              .isInstanceOf(TransientException.class)
              .hasMessageStartingWith("holding the lease on db.t for o:");
          assertThatThrownBy(() -> new JobLog(client, "leases").recent("db.t", 1))
              .isInstanceOf(TransientException.class);
        });
  }

  @Test
  void aRefusedConnectionIsTransient() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    try (DynamoDbClient client = clientFor(URI.create("http://127.0.0.1:" + port))) {
      assertThatThrownBy(
              () -> new TableLease(client, "leases", Clock.systemUTC()).release("db.t", "o", 1))
          .isInstanceOf(TransientException.class)
          .hasMessageStartingWith("releasing the lease on db.t for o:");
    }
  }

  @Test
  void aMissingTableIsAnApplicationError() {
    try (LocalDynamoDb dynamo = new LocalDynamoDb()) {
      assertThatThrownBy(
              () ->
                  new TableLease(dynamo.client(), "no-such-table", Clock.systemUTC())
                      .acquire("db.t", "o", Duration.ofMinutes(1)))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageStartingWith("acquiring the lease on db.t for o: ResourceNotFoundException");
    }
  }
}
