package io.icecompact.core.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.OutsideDeploymentScopeException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeployedCatalogTest {
  private static final DeployedCatalog GLUE =
      DeployedCatalog.parse("{\"type\": \"glue\", \"warehouse\": \"s3://wh/warehouse/\"}");

  @Test
  void anInputWithoutCatalogPropertiesGetsTheDeployedOnes() {
    assertThat(GLUE.resolve(null, "catalog_properties"))
        .isEqualTo(Map.of("type", "glue", "warehouse", "s3://wh/warehouse/"));
    assertThat(GLUE.resolve(Map.of(), "catalog_properties"))
        .isEqualTo(Map.of("type", "glue", "warehouse", "s3://wh/warehouse/"));
  }

  @Test
  void anInputMayRepeatTheDeployedValuesAndAddTuningKeysOnly() {
    assertThat(
            GLUE.resolve(
                Map.of("type", "glue", "s3.multipart.part-size-bytes", "67108864"),
                "catalog_properties"))
        .isEqualTo(
            Map.of(
                "type",
                "glue",
                "warehouse",
                "s3://wh/warehouse/",
                "s3.multipart.part-size-bytes",
                "67108864"));
  }

  @Test
  void anotherCatalogIsRefusedNamingEveryKey() {
    assertThatThrownBy(
            () ->
                GLUE.resolve(
                    Map.of(
                        "type",
                        "rest",
                        "uri",
                        "https://their-server",
                        "s3.multipart.part-size-bytes",
                        "1"),
                    "catalog_properties"))
        .isInstanceOf(OutsideDeploymentScopeException.class)
        .hasMessage(
            "The input's catalog_properties may not set type (differs from the deployed value),"
                + " uri: this deployment's catalog is fixed at deploy time (CATALOG_PROPERTIES), so"
                + " an input may not name another catalog, endpoint, FileIO, credentials, region or"
                + " warehouse. Leave catalog_properties out, repeat the deployed values, or set"
                + " only [http-client.urlconnection.connection-timeout-ms,"
                + " http-client.urlconnection.socket-timeout-ms, s3.delete.batch-size,"
                + " s3.delete.num-threads, s3.multipart.num-threads, s3.multipart.part-size-bytes,"
                + " s3.multipart.threshold]; nothing was written");
  }

  @Test
  void endpointsFileIoCredentialsRegionAndWarehouseAreEachRefused() {
    for (String key :
        new String[] {
          "s3.endpoint",
          "glue.endpoint",
          "glue.id",
          "io-impl",
          "catalog-impl",
          "client.factory",
          "client.region",
          "client.assume-role.arn",
          "s3.access-key-id",
          "s3.secret-access-key",
          "s3.session-token",
          "rest.sigv4-enabled",
          "credential",
          "token"
        }) {
      assertThatThrownBy(() -> GLUE.resolve(Map.of(key, "x"), "catalog_properties"))
          .as(key)
          .isInstanceOf(OutsideDeploymentScopeException.class)
          .hasMessageStartingWith("The input's catalog_properties may not set " + key + ":");
    }
    assertThatThrownBy(
            () -> GLUE.resolve(Map.of("warehouse", "s3://other/wh/"), "catalog_properties"))
        .hasMessageStartingWith(
            "The input's catalog_properties may not set warehouse (differs from the deployed"
                + " value):");
  }

  @Test
  void withoutADeployedCatalogTheInputNamesItsOwn() {
    DeployedCatalog none = DeployedCatalog.parse("");
    assertThat(none.isDeployed()).isFalse();
    assertThat(none.resolve(Map.of("type", "rest", "uri", "u"), "catalog_properties"))
        .isEqualTo(Map.of("type", "rest", "uri", "u"));
    assertThatThrownBy(() -> none.resolve(null, "catalog_properties"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "The input's catalog_properties are missing, and this deployment fixes no catalog"
                + " (CATALOG_PROPERTIES is unset)");
    assertThatThrownBy(() -> none.resolve(Map.of("uri", "x"), "catalog_properties"))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith(
            "The input's catalog_properties set neither 'type' nor 'catalog-impl'");
  }

  @Test
  void aMalformedDeployedCatalogFailsAtColdStart() {
    assertThatThrownBy(() -> DeployedCatalog.parse("{\"type\": "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("CATALOG_PROPERTIES is not a JSON object of string values");
    assertThatThrownBy(() -> DeployedCatalog.parse("{\"warehouse\": \"s3://b/\"}"))
        .hasMessage("CATALOG_PROPERTIES sets neither 'type' nor 'catalog-impl': [warehouse]");
  }

  @Test
  void theScopeReadsItFromTheEnvironment() {
    DeploymentScope scope =
        DeploymentScope.fromEnvironment(
            Map.of(
                "CATALOG_PROPERTIES", "{\"catalog-impl\": \"x.Y\", \"warehouse\": \"s3://b/\"}"));
    assertThat(scope.catalogProperties(null))
        .isEqualTo(Map.of("catalog-impl", "x.Y", "warehouse", "s3://b/"));
    assertThat(DeploymentScope.fromEnvironment(Map.of()).catalog().isDeployed()).isFalse();
  }
}
