package io.icecompact.core.table;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop {@link Configuration} handed to catalogs and FileIOs that read one (Hadoop's catalog
 * and FileIO, Hive's catalog, any {@code Configurable} catalog-impl). Catalog properties {@code
 * hadoop.K=V} set its key {@code K}, as Spark's {@code spark.hadoop.K} do. Only loaded where
 * hadoop-common is on the class path: {@link CatalogFactory} checks first.
 */
final class HadoopConfigurations {
  static final String PREFIX = "hadoop.";

  private HadoopConfigurations() {}

  static Configuration of(Map<String, String> catalogProperties) {
    Configuration conf = new Configuration();
    catalogProperties.forEach(
        (key, value) -> {
          if (key.startsWith(PREFIX) && key.length() > PREFIX.length()) {
            conf.set(key.substring(PREFIX.length()), value);
          }
        });
    return conf;
  }
}
