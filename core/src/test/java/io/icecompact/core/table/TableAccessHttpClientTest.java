package io.icecompact.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The deployed functions ship only the SDK's url-connection client, so it is the default. */
class TableAccessHttpClientTest {
  @Test
  void defaultsToUrlConnection() {
    try (TableAccess access = new TableAccess(Map.of())) {
      assertThat(access.fileIO().properties()).containsEntry("http-client.type", "urlconnection");
    }
  }

  @Test
  void keepsAnExplicitChoice() {
    try (TableAccess access = new TableAccess(Map.of("http-client.type", "apache"))) {
      assertThat(access.fileIO().properties()).containsEntry("http-client.type", "apache");
    }
  }
}
