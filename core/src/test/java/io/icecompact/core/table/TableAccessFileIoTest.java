package io.icecompact.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

/**
 * The catalog gets the FileIO TableAccess uses itself: S3FileIO for an S3 warehouse unless the
 * properties name one. Iceberg's JDBC catalog would otherwise default to HadoopFileIO, which the
 * deployed functions do not carry (DeployedJarCatalogsIT in state-machine runs that catalog from
 * the jars).
 */
class TableAccessFileIoTest {
  private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";

  @Test
  void anS3WarehouseGivesTheCatalogS3FileIo() {
    assertThat(catalogProperties(Map.of("warehouse", "s3://bucket/warehouse")))
        .containsEntry("io-impl", S3_FILE_IO);
  }

  @Test
  void anExplicitFileIoIsKept() {
    assertThat(
            catalogProperties(
                Map.of("warehouse", "s3://bucket/warehouse", "io-impl", "com.example.MyFileIO")))
        .containsEntry("io-impl", "com.example.MyFileIO");
  }

  @Test
  void anotherWarehouseKeepsTheCatalogsOwnDefault() {
    assertThat(catalogProperties(Map.of("warehouse", "/tmp/warehouse")))
        .doesNotContainKey("io-impl");
  }

  private static Map<String, String> catalogProperties(Map<String, String> given) {
    Map<String, String> properties = new HashMap<>(given);
    properties.put("catalog-impl", RecordingCatalog.class.getName());
    try (TableAccess access = new TableAccess(properties)) {
      return ((RecordingCatalog) access.catalog()).initializedWith;
    }
  }

  /** Remembers the properties it was initialized with. */
  public static final class RecordingCatalog extends InMemoryCatalog {
    Map<String, String> initializedWith;

    @Override
    public void initialize(String name, Map<String, String> properties) {
      initializedWith = Map.copyOf(properties);
      super.initialize(name, Map.of());
    }
  }
}
