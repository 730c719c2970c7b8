package io.icecompact.core.table;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.InvalidJobInputException;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;

/**
 * Creates the catalog and FileIO named by catalog properties, each with a Hadoop configuration when
 * hadoop-common is on the class path (Iceberg gives it only to those that implement Hadoop's {@code
 * Configurable}). What a catalog type needs and the class path lacks is named before anything
 * starts, rather than surfacing as an NPE or a reflection error.
 */
final class CatalogFactory {
  static final String HADOOP_CONFIGURATION = "org.apache.hadoop.conf.Configuration";
  static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
  static final String KNOWN_TYPES = "glue, rest, jdbc, hadoop, hive, nessie";

  /** What each catalog type icecompact does not ship needs on the class path. */
  private static final Map<String, String> NOT_SHIPPED =
      Map.of(
          CatalogUtil.ICEBERG_CATALOG_TYPE_HIVE,
          "Iceberg's HiveCatalog (org.apache.iceberg:iceberg-hive-metastore) and the Hive metastore client"
              + " (org.apache.hive:hive-metastore)",
          CatalogUtil.ICEBERG_CATALOG_TYPE_NESSIE,
          "Iceberg's NessieCatalog (org.apache.iceberg:iceberg-nessie) and Nessie's client"
              + " (org.projectnessie.nessie:nessie-client); a Nessie server also serves type=rest");

  private CatalogFactory() {}

  static Catalog catalog(String name, Map<String, String> properties) {
    String type = properties.get(CatalogUtil.ICEBERG_CATALOG_TYPE);
    if (type == null && !properties.containsKey(CatalogProperties.CATALOG_IMPL)) {
      throw new InvalidJobInputException(
          "Catalog properties must set 'type' ("
              + KNOWN_TYPES
              + ") or 'catalog-impl'; got keys "
              + properties.keySet());
    }
    if (type != null && !properties.containsKey(CatalogProperties.CATALOG_IMPL)) {
      requireClassesOf(type.toLowerCase(Locale.ROOT));
    }
    try {
      return CatalogUtil.buildIcebergCatalog(name, properties, hadoopConfIfAvailable(properties));
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot create the catalog", InvalidJobInputException::new);
    }
  }

  /**
   * The FileIO named by {@code impl}. Only a FileIO that may fall back to Hadoop's
   * (ResolvingFileIO, HadoopFileIO) gets a configuration; S3FileIO, the deployed functions'
   * default, never loads Hadoop.
   */
  static FileIO fileIO(String impl, Map<String, String> properties) {
    Object conf = S3_FILE_IO.equals(impl) ? null : hadoopConfIfAvailable(properties);
    return CatalogUtil.loadFileIO(impl, properties, conf);
  }

  private static void requireClassesOf(String type) {
    if (CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP.equals(type) && !hadoopAvailable()) {
      throw new InvalidJobInputException(
          "Catalog type 'hadoop' needs Hadoop's hadoop-common ("
              + HADOOP_CONFIGURATION
              + ") on the class path; the CLI and the worker function carry it, the planner and committer"
              + " functions do not");
    }
    String needs = NOT_SHIPPED.get(type);
    if (needs != null && !present(implementationOf(type))) {
      throw new InvalidJobInputException(
          "Catalog type '"
              + type
              + "' needs "
              + needs
              + " on the class path; icecompact does not include"
              + " them. Use type glue, rest, jdbc or hadoop, or add them to the class path");
    }
  }

  private static String implementationOf(String type) {
    return CatalogUtil.ICEBERG_CATALOG_TYPE_HIVE.equals(type)
        ? CatalogUtil.ICEBERG_CATALOG_HIVE
        : CatalogUtil.ICEBERG_CATALOG_NESSIE;
  }

  private static Object hadoopConfIfAvailable(Map<String, String> properties) {
    return hadoopAvailable() ? HadoopConfigurations.of(properties) : null;
  }

  private static boolean hadoopAvailable() {
    return HadoopOnClassPath.AVAILABLE;
  }

  private static boolean present(String className) {
    return loads(className, false);
  }

  private static boolean loads(String className, boolean initialize) {
    try {
      Class.forName(className, initialize, CatalogFactory.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * Whether Hadoop's Configuration loads and initializes (it needs woodstox and Hadoop's shaded
   * Guava besides hadoop-common), probed once.
   */
  private static final class HadoopOnClassPath {
    static final boolean AVAILABLE = loads(HADOOP_CONFIGURATION, true);
  }
}
