package io.icecompact.core.scope;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.OutsideDeploymentScopeException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The catalog a deployment was given at deploy time ({@code CATALOG_PROPERTIES}, a JSON object of
 * Iceberg catalog properties), which no execution input may change.
 *
 * <p>Why: catalog properties decide where every function reads and writes. Were they the caller's,
 * anyone allowed {@code states:StartExecution} could name a REST catalog of their own ({@code
 * {"type":"rest","uri":"https://their-server"}}) that describes a "table" whose location is a real
 * table's folder inside the allowed prefix; the functions would then write there, and care would
 * list and delete that folder's live files with the deployment's role: a confused deputy. The
 * location check ({@link DeploymentScope#checkTableLocations}) cannot tell a lying catalog's
 * location from a true one.
 *
 * <p>An input's {@code catalog_properties} may be absent (the deployed ones are used), may repeat a
 * deployed value (the schedules' inputs and older callers do), and may add only {@link
 * #INPUT_TUNABLE} keys, which change how fast the FileIO talks to S3, never what it reaches. Any
 * other key (another {@code type}, {@code catalog-impl}, {@code uri}, an endpoint, {@code io-impl},
 * credentials, a region, {@code warehouse}, a client factory...) is refused, naming the keys,
 * before anything is written. An empty deployed catalog (the embedded runner, the CLI, a deployment
 * that set none) leaves the input's properties as they are.
 *
 * @param properties the deployed properties; empty = the caller chooses
 */
public record DeployedCatalog(Map<String, String> properties) {
  public static final String CATALOG_PROPERTIES_ENV = "CATALOG_PROPERTIES";

  /**
   * The keys an input may add to a deployed catalog: S3FileIO's multipart and delete batching and
   * the HTTP client's timeouts (Iceberg's {@code S3FileIOProperties} and {@code
   * HttpClientProperties} names). Each only tunes requests the deployed FileIO makes anyway.
   */
  public static final Set<String> INPUT_TUNABLE =
      Set.of(
          "s3.multipart.part-size-bytes",
          "s3.multipart.threshold",
          "s3.multipart.num-threads",
          "s3.delete.batch-size",
          "s3.delete.num-threads",
          "http-client.urlconnection.socket-timeout-ms",
          "http-client.urlconnection.connection-timeout-ms");

  private static final ObjectMapper JSON = new ObjectMapper();

  public DeployedCatalog {
    properties = Map.copyOf(properties);
  }

  /** No deployed catalog: each input names its own (the embedded runner, the CLI). */
  public static DeployedCatalog none() {
    return new DeployedCatalog(Map.of());
  }

  /**
   * Parses {@code CATALOG_PROPERTIES}' value; unset or blank = none. A malformed value is a
   * deployment error, thrown at cold start.
   */
  public static DeployedCatalog parse(String json) {
    if (json == null || json.isBlank()) {
      return none();
    }
    try {
      Map<String, String> properties =
          JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() {});
      if (!properties.containsKey("type") && !properties.containsKey("catalog-impl")) {
        throw new IllegalArgumentException(
            CATALOG_PROPERTIES_ENV
                + " sets neither 'type' nor 'catalog-impl': "
                + properties.keySet());
      }
      return new DeployedCatalog(properties);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          CATALOG_PROPERTIES_ENV
              + " is not a JSON object of string values (Iceberg catalog properties): "
              + e.getOriginalMessage(),
          e);
    }
  }

  public boolean isDeployed() {
    return !properties.isEmpty();
  }

  /**
   * The catalog properties a step uses for an input that asked for {@code requested} (null or
   * empty: none asked for): the deployed ones, plus the input's {@link #INPUT_TUNABLE} keys.
   *
   * @param field how the input names them, for the messages (e.g. {@code catalog_properties})
   * @throws OutsideDeploymentScopeException when the input names a key it may not, or changes a
   *     deployed value
   * @throws InvalidJobInputException when nothing is deployed and the input names no catalog
   */
  public Map<String, String> resolve(Map<String, String> requested, String field) {
    Map<String, String> asked = requested == null ? Map.of() : requested;
    if (!isDeployed()) {
      if (!asked.containsKey("type") && !asked.containsKey("catalog-impl")) {
        throw new InvalidJobInputException(
            "The input's "
                + field
                + (asked.isEmpty() ? " are missing" : " set neither 'type' nor 'catalog-impl'")
                + ", and this deployment fixes no catalog ("
                + CATALOG_PROPERTIES_ENV
                + " is unset): name the catalog, e.g. {\"type\": \"glue\","
                + " \"warehouse\": \"s3://bucket/warehouse\"}");
      }
      return asked;
    }
    List<String> refused = new ArrayList<>();
    Map<String, String> resolved = new TreeMap<>(properties);
    new TreeMap<>(asked)
        .forEach(
            (key, value) -> {
              String deployed = properties.get(key);
              if (deployed != null) {
                if (!deployed.equals(value)) {
                  refused.add(key + " (differs from the deployed value)");
                }
              } else if (INPUT_TUNABLE.contains(key)) {
                resolved.put(key, value);
              } else {
                refused.add(key);
              }
            });
    if (!refused.isEmpty()) {
      throw new OutsideDeploymentScopeException(
          "The input's "
              + field
              + " may not set "
              + String.join(", ", refused)
              + ": this deployment's catalog is fixed at deploy time ("
              + CATALOG_PROPERTIES_ENV
              + "), so an input may not name another catalog, endpoint, FileIO, credentials,"
              + " region or warehouse. Leave "
              + field
              + " out, repeat the deployed values, or set only "
              + new TreeSet<>(INPUT_TUNABLE)
              + "; nothing was written");
    }
    return Map.copyOf(resolved);
  }
}
