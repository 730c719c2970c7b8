package io.icecompact.planner.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.table.TableAccess;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handler's own checks and output; the sweep of real tables runs in state-machine's
 * StateMachineSweepTest.
 */
class AssessTablesHandlerTest {
  @TempDir Path warehouse;
  private String catalog;

  @BeforeEach
  void catalogWithAnEmptyNamespace() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    properties.put("jdbc.schema-version", "V1");
    properties.put("warehouse", warehouse.toString());
    try (TableAccess access = new TableAccess(properties)) {
      ((SupportsNamespaces) access.catalog()).createNamespace(Namespace.of("empty"));
    }
    catalog = JobJson.toJson(properties);
  }

  private static JsonNode handle(String input) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new AssessTablesHandler()
        .handleRequest(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out, null);
    return JobJson.mapper().readTree(out.toByteArray());
  }

  @Test
  void aNamespaceWithoutTablesIsASweepWithNothingToCompact() throws IOException {
    JsonNode plan =
        handle(
            "{\"sweep\": {\"catalog_properties\": "
                + catalog
                + ", \"namespaces\": [\"empty\"],"
                + " \"max_concurrent_tables\": 2}, \"execution_name\": \"nightly\"}");

    assertThat(plan.get("tables_assessed").asInt()).isZero();
    assertThat(plan.get("compact_count").asInt()).isZero();
    assertThat(plan.get("max_concurrent_tables").asInt()).isEqualTo(2);
    assertThat(plan.get("to_compact")).isEmpty();
    assertThat(plan.get("decisions").get("COMPACT").asInt()).isZero();
  }

  /**
   * Issue 28: the deadline is the invocation's remaining time less a margin. With no time left the
   * handler still answers, before Lambda would kill it, with a plan that says what it did not
   * assess.
   */
  @Test
  void anInvocationOutOfTimeAnswersWithWhatItDidNotAssess() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new AssessTablesHandler()
        .handleRequest(
            new ByteArrayInputStream(
                ("{\"sweep\": {\"catalog_properties\": "
                        + catalog
                        + ", \"namespaces\": [\"empty\"]}, \"execution_name\": \"nightly\"}")
                    .getBytes(StandardCharsets.UTF_8)),
            out,
            remaining(0));
    JsonNode plan = JobJson.mapper().readTree(out.toByteArray());

    assertThat(plan.get("tables_assessed").asInt()).isZero();
    assertThat(plan.get("not_assessed").get("namespaces").get(0).asText()).isEqualTo("empty");
    assertThat(plan.get("not_assessed").get("reason").asText()).contains("deadline");
    assertThat(plan.get("compact_count").asInt()).isZero();
  }

  @Test
  void theMarginIsAMinuteOrAQuarterOfAShorterRemainingTime() {
    assertThat(AssessTablesHandler.safetyMargin(Duration.ofSeconds(900)))
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(AssessTablesHandler.safetyMargin(Duration.ofSeconds(120)))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(AssessTablesHandler.deadline(null).isNone()).isTrue();
    assertThat(AssessTablesHandler.deadline(remaining(900_000)).passed()).isFalse();
  }

  /** A Lambda context with {@code millis} left; nothing else of it is read. */
  private static Context remaining(long millis) {
    return (Context)
        Proxy.newProxyInstance(
            Context.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getRemainingTimeInMillis" -> (int) millis;
                  case "getAwsRequestId" -> "request-1";
                  default -> null;
                });
  }

  @Test
  void eachMissingOrBadPartIsNamed() {
    assertRejected("{\"execution_name\": \"nightly\"}", "AssessTables input has no 'sweep'");
    assertRejected(
        "{\"sweep\": {\"catalog_properties\": " + catalog + ", \"namespaces\": [\"empty\"]}}",
        "AssessTables input has no 'execution_name'");
    assertRejected(
        "{\"sweep\": {\"catalog_properties\": "
            + catalog
            + ", \"namespaces\": [\"empty\"],"
            + " \"max_tables\": 0}, \"execution_name\": \"nightly\"}",
        "Sweep input is invalid: $.max_tables");
    assertRejected(
        "{\"sweep\": {\"catalog_properties\": "
            + catalog
            + ", \"namespaces\": [\"nope\"]},"
            + " \"execution_name\": \"nightly\"}",
        "Namespace not found: nope");
  }

  /**
   * A REST catalog that answers its configuration, then 503 to the table listing (a throttled or
   * failing catalog): the error is a TransientException, which the sweep's Retry matches; a 403 is
   * not retried.
   */
  @Test
  void aCatalogThatIsUnavailableIsTransientAndOneThatRefusesIsNot() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    AtomicInteger status = new AtomicInteger(503);
    server.createContext(
        "/",
        exchange -> {
          boolean config = exchange.getRequestURI().getPath().endsWith("/v1/config");
          int code = config ? 200 : status.get();
          byte[] body =
              (config
                      ? "{\"defaults\": {}, \"overrides\": {}}"
                      : "{\"error\": {\"message\": \"catalog says "
                          + code
                          + "\", \"type\": \"X\", \"code\": "
                          + code
                          + "}}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(code, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      String rest =
          "{\"type\": \"rest\", \"uri\": \"http://127.0.0.1:"
              + server.getAddress().getPort()
              + "\"}";
      String input =
          "{\"sweep\": {\"catalog_properties\": "
              + rest
              + ", \"namespaces\": [\"lab\"]},"
              + " \"execution_name\": \"nightly\"}";

      assertThatThrownBy(() -> handle(input))
          .isInstanceOf(TransientException.class)
          .hasMessageContaining("Cannot list the tables of namespace lab")
          .hasMessageContaining("catalog says 503");
      status.set(403);
      assertThatThrownBy(() -> handle(input))
          .isInstanceOf(InvalidJobInputException.class)
          .hasMessageContaining("Cannot list the tables of namespace lab")
          .hasMessageContaining("catalog says 403");
    } finally {
      server.stop(0);
    }
  }

  private static void assertRejected(String input, String message) {
    assertThatThrownBy(() -> handle(input))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining(message);
  }
}
