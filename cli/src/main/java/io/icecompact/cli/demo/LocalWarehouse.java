package io.icecompact.cli.demo;

import io.icecompact.core.io.LocalFileIO;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The embedded default: a JDBC catalog on SQLite and table files on the local disk, with no AWS account
 * and no server. Everything else in icecompact sees it as ordinary Iceberg catalog properties.
 */
public final class LocalWarehouse {
  private LocalWarehouse() {}

  public static Map<String, String> catalogProperties(Path warehouse) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + warehouse.toAbsolutePath().resolve("catalog.db"));
    properties.put("warehouse", warehouse.toAbsolutePath().toString());
    properties.put("io-impl", LocalFileIO.class.getName());
    properties.put("jdbc.schema-version", "V1");
    return properties;
  }
}
