package io.icecompact.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * An in-JVM stand-in for the AWS Glue Data Catalog API, enough for Iceberg's real {@code
 * GlueCatalog} pointed at it with {@code glue.endpoint} ({@link #icebergProperties}) to create
 * databases and tables, load, commit, register and list them; and for tests to add "other teams'"
 * entries Iceberg would never write: tables of any format and location, resource links, Lake
 * Formation-registered tables. It speaks Glue's JSON 1.1 protocol: {@code POST /} with {@code
 * X-Amz-Target: AWSGlue.<Operation>}, errors as HTTP 400 with {@code x-amzn-ErrorType} and a {@code
 * __type} body, as the AWS SDK reads them.
 *
 * <p>Operations: CreateDatabase, GetDatabase, GetDatabases, DeleteDatabase, CreateTable, GetTable,
 * GetTables, UpdateTable, DeleteTable. A throttling switch ({@link #throttleNext}, {@link
 * #throttleEvery}) answers {@code ThrottlingException} as Glue does under load, and {@link #calls}
 * counts every call by operation.
 *
 * <p>How it differs from Glue:
 *
 * <ul>
 *   <li>No authentication or authorization: signatures are not checked, every caller may do
 *       everything (Lake Formation's flag is stored and returned, not enforced: what a flagged
 *       table does to the caller is up to its files' storage, e.g. a {@link FaultyS3} rule).
 *   <li>One catalog: a request naming another {@code CatalogId} (a resource link's target in
 *       another account) is answered {@code AccessDeniedException}, as Glue does without a grant.
 *   <li>{@code GetTables}' {@code Expression}, {@code TableType} filters and {@code QueryAsOfTime},
 *       and {@code GetDatabases}' {@code ResourceShareType}, are ignored; pages hold {@code
 *       MaxResults} entries (default and cap 100) in name order, and the {@code NextToken} is an
 *       offset, so a page may shift if tables are added between calls.
 *   <li>{@code UpdateTable} checks {@code VersionId} (Glue's optimistic lock, answered {@code
 *       ConcurrentModificationException}) and then bumps it; no table versions are archived
 *       whatever {@code SkipArchive} says, and GetTableVersions is not served.
 *   <li>Names are stored as given (Glue lowercases them); no partitions, column statistics,
 *       transactions or tags; {@code UpdateDatabase} is not served.
 *   <li>Timestamps ({@code CreateTime}, {@code UpdateTime}) are the server's clock in epoch
 *       seconds.
 * </ul>
 */
public final class LocalGlue implements AutoCloseable {
  /** The id of the one catalog this stand-in serves ({@code glue.id} may name it or be unset). */
  public static final String CATALOG_ID = "123456789012";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE = 100;

  private final Map<String, ObjectNode> databases = new TreeMap<>();
  private final Map<String, Map<String, ObjectNode>> tables = new TreeMap<>();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final AtomicInteger throttleLeft = new AtomicInteger();
  private volatile List<String> throttled = List.of();
  private volatile int throttleEvery;
  private final AtomicInteger seenByEvery = new AtomicInteger();
  private HttpServer server;

  public synchronized LocalGlue start() {
    if (server != null) {
      return this;
    }
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot listen for the Glue stand-in", e);
    }
    server.createContext("/", this::serve);
    server.setExecutor(
        Executors.newCachedThreadPool(
            runnable -> {
              Thread thread = new Thread(runnable, "local-glue");
              thread.setDaemon(true);
              return thread;
            }));
    server.start();
    return this;
  }

  public URI endpoint() {
    start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /**
   * Catalog properties of Iceberg's GlueCatalog on this stand-in: {@code type=glue}, {@code
   * glue.endpoint}, {@code glue.skip-archive}, static credentials through {@link
   * LocalAwsCredentials}, {@code client.region}, {@code http-client.type=urlconnection} and {@code
   * warehouse}. Merge a FileIO's properties (e.g. {@link LocalS3#icebergProperties()}) into them.
   */
  public Map<String, String> icebergProperties(String warehouse) {
    Map<String, String> properties = new TreeMap<>();
    properties.put("type", "glue");
    properties.put("glue.endpoint", endpoint().toString());
    properties.put("glue.skip-archive", "true");
    properties.put("warehouse", warehouse);
    properties.put("client.region", LocalS3.REGION);
    properties.put("http-client.type", "urlconnection");
    properties.put("client.credentials-provider", LocalAwsCredentials.class.getName());
    properties.put(LocalAwsCredentials.PREFIX + "access-key-id", LocalS3.ACCESS_KEY_ID);
    properties.put(LocalAwsCredentials.PREFIX + "secret-access-key", LocalS3.SECRET_ACCESS_KEY);
    return properties;
  }

  /**
   * A Glue client of this stand-in (the caller closes it) that retries as the SDK's standard mode
   * (3 attempts, throttling included) but waits 10 to 100 ms between attempts instead of the
   * throttling backoff's second or more, so that tests throttling past the SDK's retries stay fast.
   * Iceberg's own client ({@link #icebergProperties}) keeps the SDK's waits.
   */
  public GlueClient newClient() {
    BackoffStrategy backoff =
        BackoffStrategy.exponentialDelay(Duration.ofMillis(10), Duration.ofMillis(100));
    return GlueClient.builder()
        .endpointOverride(endpoint())
        .region(Region.of(LocalS3.REGION))
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(LocalS3.ACCESS_KEY_ID, LocalS3.SECRET_ACCESS_KEY)))
        .httpClient(UrlConnectionHttpClient.create())
        .overrideConfiguration(
            o ->
                o.retryStrategy(
                    AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .backoffStrategy(backoff)
                        .throttlingBackoffStrategy(backoff)
                        .circuitBreakerEnabled(false)
                        .build()))
        .build();
  }

  // ---- what tests set up and observe ----

  /**
   * Answers the next {@code count} calls of {@code operations} (any, when none) with throttling.
   */
  public LocalGlue throttleNext(int count, String... operations) {
    throttled = List.of(operations);
    throttleLeft.set(count);
    return this;
  }

  /** Answers every {@code n}-th call (of any operation) with throttling; 0 turns it off. */
  public LocalGlue throttleEvery(int n) {
    seenByEvery.set(0);
    throttleEvery = n;
    return this;
  }

  /** Calls received of {@code operation} (e.g. {@code GetTables}), throttled ones included. */
  public int calls(String operation) {
    AtomicInteger count = calls.get(operation);
    return count == null ? 0 : count.get();
  }

  /** A database, as another team would have created it. */
  public synchronized LocalGlue putDatabase(String name) {
    ObjectNode database = JSON.createObjectNode().put("Name", name);
    databases.putIfAbsent(name, database);
    tables.putIfAbsent(name, new TreeMap<>());
    return this;
  }

  /**
   * A table entry written directly, as another team's tool would: {@code parameters} (e.g. {@code
   * table_type=ICEBERG, metadata_location=...}, or none for a Hive table), its {@code location}
   * (null: no storage descriptor) and Glue {@code TableType} ({@code EXTERNAL_TABLE}, {@code
   * VIRTUAL_VIEW}).
   */
  public synchronized LocalGlue putTable(
      String database, String name, Map<String, String> parameters, String location, String type) {
    putDatabase(database);
    ObjectNode table = JSON.createObjectNode().put("Name", name).put("TableType", type);
    ObjectNode params = table.putObject("Parameters");
    parameters.forEach(params::put);
    if (location != null) {
      table.putObject("StorageDescriptor").put("Location", location);
    }
    tables.get(database).put(name, stored(database, table, 1));
    return this;
  }

  /** A resource link {@code database.name} to {@code targetDatabase.targetName} of a catalog. */
  public synchronized LocalGlue putResourceLink(
      String database, String name, String targetCatalogId, String targetDatabase, String target) {
    putDatabase(database);
    ObjectNode table = JSON.createObjectNode().put("Name", name);
    ObjectNode link = table.putObject("TargetTable");
    if (targetCatalogId != null) {
      link.put("CatalogId", targetCatalogId);
    }
    link.put("DatabaseName", targetDatabase).put("Name", target);
    tables.get(database).put(name, stored(database, table, 1));
    return this;
  }

  /** Sets a table's {@code IsRegisteredWithLakeFormation}. */
  public synchronized LocalGlue registerWithLakeFormation(String database, String name) {
    ObjectNode table = tables.getOrDefault(database, Map.of()).get(name);
    if (table == null) {
      throw new IllegalArgumentException("no table " + database + "." + name);
    }
    table.put("IsRegisteredWithLakeFormation", true);
    return this;
  }

  // ---- the protocol ----

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      String target = String.valueOf(exchange.getRequestHeaders().getFirst("X-Amz-Target"));
      String operation = target.startsWith("AWSGlue.") ? target.substring(8) : target;
      JsonNode request;
      try (InputStream in = exchange.getRequestBody()) {
        byte[] body = in.readAllBytes();
        request = body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
      }
      calls.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
      if (throttles(operation)) {
        error(exchange, "ThrottlingException", "Rate exceeded");
        return;
      }
      try {
        respond(exchange, 200, handle(operation, request));
      } catch (GlueError e) {
        error(exchange, e.type, e.getMessage());
      }
    }
  }

  private boolean throttles(String operation) {
    if (throttleEvery > 0 && seenByEvery.incrementAndGet() % throttleEvery == 0) {
      return true;
    }
    if (!throttled.isEmpty() && !throttled.contains(operation)) {
      return false;
    }
    return throttleLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  private synchronized JsonNode handle(String operation, JsonNode request) {
    String catalogId = request.path("CatalogId").asText(null);
    if (catalogId != null && !catalogId.equals(CATALOG_ID)) {
      throw new GlueError(
          "AccessDeniedException",
          "Insufficient privileges to access catalog " + catalogId + " (a LocalGlue serves one)");
    }
    ObjectNode answer = JSON.createObjectNode();
    switch (operation) {
      case "CreateDatabase" -> {
        JsonNode input = request.path("DatabaseInput");
        String name = input.path("Name").asText();
        if (databases.containsKey(name)) {
          throw new GlueError("AlreadyExistsException", "Database " + name + " already exists");
        }
        databases.put(name, input.deepCopy());
        tables.put(name, new TreeMap<>());
      }
      case "GetDatabase" -> answer.set("Database", database(request.path("Name").asText()));
      case "DeleteDatabase" -> {
        String name = request.path("Name").asText();
        database(name);
        databases.remove(name);
        tables.remove(name);
      }
      case "GetDatabases" -> {
        List<JsonNode> all = new ArrayList<>(databases.values());
        page(answer, "DatabaseList", all, request);
      }
      case "CreateTable" -> {
        String database = request.path("DatabaseName").asText();
        database(database);
        JsonNode input = request.path("TableInput");
        String name = input.path("Name").asText();
        if (tables.get(database).containsKey(name)) {
          throw new GlueError(
              "AlreadyExistsException", "Table " + database + "." + name + " already exists");
        }
        tables.get(database).put(name, stored(database, (ObjectNode) input.deepCopy(), 1));
      }
      case "GetTable" -> answer.set("Table", table(request));
      case "GetTables" -> {
        String database = request.path("DatabaseName").asText();
        database(database);
        page(answer, "TableList", new ArrayList<>(tables.get(database).values()), request);
      }
      case "UpdateTable" -> {
        String database = request.path("DatabaseName").asText();
        JsonNode input = request.path("TableInput");
        ObjectNode current = table(database, input.path("Name").asText());
        String version = request.path("VersionId").asText(null);
        if (version != null && !version.equals(current.path("VersionId").asText())) {
          throw new GlueError(
              "ConcurrentModificationException",
              "Update table failed due to concurrent modifications: version "
                  + version
                  + " is not the current "
                  + current.path("VersionId").asText());
        }
        ObjectNode updated =
            stored(database, (ObjectNode) input.deepCopy(), current.path("VersionId").asInt() + 1);
        updated.set("CreateTime", current.get("CreateTime"));
        if (current.has("IsRegisteredWithLakeFormation")) {
          updated.set(
              "IsRegisteredWithLakeFormation", current.get("IsRegisteredWithLakeFormation"));
        }
        tables.get(database).put(input.path("Name").asText(), updated);
      }
      case "DeleteTable" -> {
        String database = request.path("DatabaseName").asText();
        String name = request.path("Name").asText();
        table(database, name);
        tables.get(database).remove(name);
      }
      default ->
          throw new GlueError(
              "InvalidInputException", "LocalGlue does not serve operation " + operation);
    }
    return answer;
  }

  private ObjectNode stored(String database, ObjectNode table, int version) {
    double now = System.currentTimeMillis() / 1000.0;
    table.put("DatabaseName", database);
    table.put("CatalogId", CATALOG_ID);
    table.put("CreateTime", now);
    table.put("UpdateTime", now);
    table.put("VersionId", Integer.toString(version));
    table.put("IsRegisteredWithLakeFormation", false);
    return table;
  }

  private ObjectNode database(String name) {
    ObjectNode database = databases.get(name);
    if (database == null) {
      throw new GlueError("EntityNotFoundException", "Database " + name + " not found.");
    }
    return database;
  }

  private ObjectNode table(JsonNode request) {
    return table(request.path("DatabaseName").asText(), request.path("Name").asText());
  }

  private ObjectNode table(String database, String name) {
    database(database);
    ObjectNode table = tables.get(database).get(name);
    if (table == null) {
      throw new GlueError("EntityNotFoundException", "Table " + name + " not found.");
    }
    return table;
  }

  private static void page(ObjectNode answer, String field, List<JsonNode> all, JsonNode request) {
    int size = Math.min(PAGE, request.path("MaxResults").asInt(PAGE));
    int from =
        request.hasNonNull("NextToken") ? Integer.parseInt(request.get("NextToken").asText()) : 0;
    int to = Math.min(all.size(), from + Math.max(1, size));
    var list = answer.putArray(field);
    all.subList(Math.min(from, all.size()), to).forEach(list::add);
    if (to < all.size()) {
      answer.put("NextToken", Integer.toString(to));
    }
  }

  private static void respond(HttpExchange exchange, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
    exchange.getResponseHeaders().set("x-amzn-RequestId", Long.toHexString(System.nanoTime()));
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void error(HttpExchange exchange, String type, String message) throws IOException {
    exchange.getResponseHeaders().set("x-amzn-ErrorType", type);
    ObjectNode body = JSON.createObjectNode().put("__type", type).put("Message", message);
    respond(exchange, 400, body);
  }

  /** An answer Glue gives as an error of {@code type}. */
  private static final class GlueError extends RuntimeException {
    final String type;

    GlueError(String type, String message) {
      super(message);
      this.type = type;
    }
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop(0);
      ((ExecutorService) server.getExecutor()).shutdownNow();
      server = null;
    }
  }
}
