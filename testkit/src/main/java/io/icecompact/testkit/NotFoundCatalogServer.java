package io.icecompact.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A catalog endpoint on 127.0.0.1 that knows no table, for the catalogs with no local
 * implementation here: it speaks just enough of Iceberg's REST catalog protocol ({@code GET
 * /v1/config}, and 404 {@code NoSuchTableException} for everything else) and of AWS Glue's JSON
 * protocol (400 {@code EntityNotFoundException} for every operation) for a client to make a real
 * request and understand the answer: "no such table". Records each request's method, path or Glue
 * operation, and whether it was signed with SigV4.
 */
public final class NotFoundCatalogServer implements AutoCloseable {
  /** One request as the server saw it. */
  public record Request(String method, String path, String glueOperation, boolean sigV4Signed) {}

  private final HttpServer server;
  private final List<Request> requests = new ArrayList<>();

  public NotFoundCatalogServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::handle);
    server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      synchronized (this) {
        requests.add(
            new Request(
                exchange.getRequestMethod(),
                path,
                target,
                authorization != null && authorization.startsWith("AWS4-HMAC-SHA256 ")));
      }
      if (target != null && target.startsWith("AWSGlue.")) {
        exchange.getResponseHeaders().set("x-amzn-ErrorType", "EntityNotFoundException");
        respond(
            exchange,
            400,
            "application/x-amz-json-1.1",
            "{\"__type\":\"EntityNotFoundException\",\"Message\":\"Entity Not Found\"}");
      } else if (path.equals("/v1/config")) {
        respond(exchange, 200, "application/json", "{\"defaults\":{},\"overrides\":{}}");
      } else {
        respond(
            exchange,
            404,
            "application/json",
            "{\"error\":{\"message\":\"Table does not exist\",\"type\":\"NoSuchTableException\",\"code\":404}}");
      }
    }
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
