package io.icecompact.testkit;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * Iceberg's REST catalog protocol on 127.0.0.1, served from a real catalog passed in (e.g. a
 * JdbcCatalog on SQLite). Each route calls Iceberg's own server-side logic, {@link
 * CatalogHandlers}, the way Iceberg's reference RESTCatalogAdapter does, and failures are Iceberg
 * {@link ErrorResponse}s with that adapter's HTTP codes, so a RESTCatalog client raises the same
 * exceptions as against a real server.
 *
 * <p>Why it exists: no REST catalog server of Iceberg 1.12 is published (iceberg-open-api's test
 * fixtures stop at 1.11, and RESTCatalogAdapter lives in iceberg-core's unpublished tests), but
 * iceberg-core's main jar carries CatalogHandlers and the request/response model.
 *
 * <p>Serves namespaces (list, create, load, exists), tables (list, create, load, exists, commit)
 * and metrics reports (accepted and dropped); {@code /v1/config} lists exactly those endpoints, so
 * a client refuses any other operation itself. Requests are handled one at a time. Closing stops
 * the server; the backing catalog belongs to the caller and stays open.
 */
public final class LocalRestCatalog implements AutoCloseable {
  private static final String SEPARATOR = RESTCatalogProperties.NAMESPACE_SEPARATOR_DEFAULT;

  /**
   * HTTP code per exception (or its nearest listed superclass) as Iceberg's RESTCatalogAdapter maps
   * them; anything else is a 500, which a client committing reads as "commit state unknown".
   */
  private static final Map<Class<?>, Integer> ERROR_CODES =
      Map.ofEntries(
          Map.entry(BadRequestException.class, 400),
          Map.entry(IllegalArgumentException.class, 400),
          Map.entry(ValidationException.class, 400),
          Map.entry(NoSuchNamespaceException.class, 404),
          Map.entry(NoSuchTableException.class, 404),
          Map.entry(NotFoundException.class, 404),
          Map.entry(UnsupportedOperationException.class, 406),
          Map.entry(AlreadyExistsException.class, 409),
          Map.entry(CommitFailedException.class, 409),
          Map.entry(NamespaceNotEmptyException.class, 409),
          Map.entry(CommitStateUnknownException.class, 500));

  /** Configured as Iceberg's own (package-private) RESTObjectMapper. */
  private static final ObjectMapper JSON = new ObjectMapper();

  static {
    JSON.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    JSON.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    JSON.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(JSON);
  }

  private final Catalog catalog;
  private final SupportsNamespaces namespaces;
  private final List<Route> routes;
  private final HttpServer server;
  private final List<String> requests = new ArrayList<>();

  /** Starts serving {@code catalog}, which must also support namespaces. */
  public LocalRestCatalog(Catalog catalog) {
    if (!(catalog instanceof SupportsNamespaces supportsNamespaces)) {
      throw new IllegalArgumentException(
          catalog.getClass().getName() + " does not support namespaces");
    }
    this.catalog = catalog;
    this.namespaces = supportsNamespaces;
    this.routes = routes();
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::handle);
    server.start();
  }

  /** The catalog's {@code uri} property for a RESTCatalog client. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  /** Each request so far as method and path, e.g. {@code POST /v1/namespaces/db/tables/orders}. */
  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  private List<Route> routes() {
    return List.of(
        new Route(
            Endpoint.V1_LIST_NAMESPACES,
            call -> {
              String parent = call.query().get("parent");
              Namespace ns =
                  parent == null
                      ? Namespace.empty()
                      : RESTUtil.namespaceFromQueryParam(parent, SEPARATOR);
              String pageSize = call.query().get("pageSize");
              return pageSize == null
                  ? CatalogHandlers.listNamespaces(namespaces, ns)
                  : CatalogHandlers.listNamespaces(
                      namespaces, ns, call.query().get("pageToken"), pageSize);
            }),
        new Route(
            Endpoint.V1_CREATE_NAMESPACE,
            call ->
                CatalogHandlers.createNamespace(
                    namespaces, call.body(CreateNamespaceRequest.class))),
        new Route(
            Endpoint.V1_LOAD_NAMESPACE,
            call -> CatalogHandlers.loadNamespace(namespaces, call.namespace())),
        new Route(
            Endpoint.V1_NAMESPACE_EXISTS,
            call -> {
              CatalogHandlers.namespaceExists(namespaces, call.namespace());
              return null;
            }),
        new Route(
            Endpoint.V1_LIST_TABLES,
            call -> {
              Namespace ns = call.namespace();
              String pageSize = call.query().get("pageSize");
              return pageSize == null
                  ? CatalogHandlers.listTables(catalog, ns)
                  : CatalogHandlers.listTables(
                      catalog, ns, call.query().get("pageToken"), pageSize);
            }),
        new Route(
            Endpoint.V1_CREATE_TABLE,
            call -> {
              CreateTableRequest request = call.body(CreateTableRequest.class);
              request.validate();
              return request.stageCreate()
                  ? CatalogHandlers.stageTableCreate(catalog, call.namespace(), request)
                  : CatalogHandlers.createTable(catalog, call.namespace(), request);
            }),
        new Route(
            Endpoint.V1_LOAD_TABLE,
            call -> {
              String snapshots = call.query().get(RESTCatalogProperties.SNAPSHOTS_QUERY_PARAMETER);
              SnapshotMode mode =
                  snapshots == null
                      ? RESTCatalogProperties.SNAPSHOT_LOADING_MODE_DEFAULT
                      : SnapshotMode.valueOf(snapshots.toUpperCase(Locale.ROOT));
              return CatalogHandlers.loadTable(catalog, call.table(), mode);
            }),
        new Route(
            Endpoint.V1_TABLE_EXISTS,
            call -> {
              CatalogHandlers.tableExists(catalog, call.table());
              return null;
            }),
        new Route(
            Endpoint.V1_UPDATE_TABLE,
            call ->
                CatalogHandlers.updateTable(
                    catalog, call.table(), call.body(UpdateTableRequest.class))),
        new Route(
            Endpoint.V1_REPORT_METRICS,
            call -> {
              call.body(ReportMetricsRequest.class);
              return null;
            }));
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getRawPath();
      byte[] body = exchange.getRequestBody().readAllBytes();
      synchronized (this) {
        requests.add(method + " " + path);
      }
      try {
        RESTResponse response =
            route(method, path, query(exchange.getRequestURI().getRawQuery()), body);
        respond(exchange, response == null ? 204 : 200, response);
      } catch (RuntimeException e) {
        int code = codeOf(e);
        respond(
            exchange,
            code,
            ErrorResponse.builder()
                .responseCode(code)
                .withType(e.getClass().getSimpleName())
                .withMessage(e.getMessage())
                .withStackTrace(e)
                .build());
      }
    }
  }

  private RESTResponse route(String method, String path, Map<String, String> query, byte[] body) {
    if (method.equals("GET") && path.equals("/v1/config")) {
      return ConfigResponse.builder()
          .withEndpoints(routes.stream().map(Route::endpoint).toList())
          .build();
    }
    for (Route route : routes) {
      Matcher matcher = route.pattern().matcher(path);
      if (route.endpoint().httpMethod().equals(method) && matcher.matches()) {
        List<String> pathVariables = new ArrayList<>();
        for (int i = 1; i <= matcher.groupCount(); i++) {
          pathVariables.add(matcher.group(i));
        }
        return route.handler().handle(new Call(pathVariables, query, body));
      }
    }
    throw new BadRequestException("No route for request: %s %s", method, path);
  }

  private static int codeOf(RuntimeException e) {
    for (Class<?> type = e.getClass(); type != null; type = type.getSuperclass()) {
      Integer code = ERROR_CODES.get(type);
      if (code != null) {
        return code;
      }
    }
    return 500;
  }

  private static void respond(HttpExchange exchange, int status, Object response)
      throws IOException {
    if (response == null || exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    byte[] bytes = JSON.writeValueAsBytes(response);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static Map<String, String> query(String rawQuery) {
    Map<String, String> query = new HashMap<>();
    if (rawQuery != null) {
      for (String pair : rawQuery.split("&")) {
        int eq = pair.indexOf('=');
        String key = eq < 0 ? pair : pair.substring(0, eq);
        String value = eq < 0 ? "" : pair.substring(eq + 1);
        query.putIfAbsent(
            URLDecoder.decode(key, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      }
    }
    return query;
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /** What a route does with a matched request; {@code null} answers 204 No Content. */
  @FunctionalInterface
  private interface Handler {
    RESTResponse handle(Call call);
  }

  /**
   * One of Iceberg's endpoints, its path as a pattern (no prefix) whose groups are the path
   * variables.
   */
  private record Route(Endpoint endpoint, Pattern pattern, Handler handler) {
    Route(Endpoint endpoint, Handler handler) {
      this(
          endpoint,
          Pattern.compile(
              endpoint.path().replace("/{prefix}", "").replaceAll("\\{[^}]+}", "([^/]+)")),
          handler);
    }
  }

  /** A request matched to a route: its raw path variables, decoded query and body. */
  private record Call(List<String> pathVariables, Map<String, String> query, byte[] rawBody) {
    Namespace namespace() {
      return RESTUtil.decodeNamespace(pathVariables.get(0), SEPARATOR);
    }

    TableIdentifier table() {
      return TableIdentifier.of(namespace(), RESTUtil.decodeString(pathVariables.get(1)));
    }

    <T> T body(Class<T> type) {
      try {
        return JSON.readValue(rawBody, type);
      } catch (IOException e) {
        throw new BadRequestException(e, "Malformed %s: %s", type.getSimpleName(), e.getMessage());
      }
    }
  }
}
