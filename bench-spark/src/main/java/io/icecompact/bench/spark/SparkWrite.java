package io.icecompact.bench.spark;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Writes an Iceberg table as a Spark user does, in a process of its own (the bench's tests start
 * it): {@code CREATE TABLE} in the given format and format version with merge-on-read deletes and
 * updates, eight {@code INSERT}s of small files, then a {@code DELETE} and an {@code UPDATE}, which
 * Spark writes as position delete files in the table's format (v2) or deletion vectors (v3). Nested
 * columns (a struct, a list; no map, which SparkScan's row hash cannot hash) and a day partition,
 * as streaming tables have.
 *
 * <p>Arguments: {@code TABLE FORMAT VERSION key=value...}: the table's name in the catalog, {@code
 * write.format.default}, the format version, and the catalog's properties as icecompact's jobs get
 * them. Prints {@value #DONE} when the table is written.
 */
public final class SparkWrite {
  static final String DONE = "spark-write: done";

  private SparkWrite() {}

  public static void main(String[] args) throws Exception {
    String table = SparkScan.CATALOG + "." + args[0];
    String format = args[1];
    int version = Integer.parseInt(args[2]);
    Map<String, String> catalog = new LinkedHashMap<>();
    for (int i = 3; i < args.length; i++) {
      String[] pair = args[i].split("=", 2);
      catalog.put(pair[0], pair[1]);
    }
    catalog.remove("io-impl"); // as SparkScan: HadoopFileIO reads and writes the same local files
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("icecompact spark write")
            .config("spark.ui.enabled", "false")
            .config("spark.log.level", "WARN")
            .config("spark.sql.shuffle.partitions", "2")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config(
                "spark.sql.catalog." + SparkScan.CATALOG, "org.apache.iceberg.spark.SparkCatalog");
    catalog.forEach(
        (key, value) ->
            builder.config("spark.sql.catalog." + SparkScan.CATALOG + "." + key, value));
    try (SparkSession spark = builder.getOrCreate()) {
      String namespace = table.substring(0, table.lastIndexOf('.'));
      spark.sql("CREATE NAMESPACE IF NOT EXISTS " + namespace);
      spark.sql(
          String.format(
              Locale.ROOT,
              "CREATE TABLE %s (id BIGINT, customer STRING, amount DECIMAL(12, 2),"
                  + " address STRUCT<city: STRING, zip: INT>, tags ARRAY<STRING>,"
                  + " day DATE) USING iceberg PARTITIONED BY (day)"
                  + " TBLPROPERTIES ('format-version'='%d', 'write.format.default'='%s',"
                  + " 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read',"
                  + " 'write.merge.mode'='merge-on-read')",
              table,
              version,
              format));
      for (int batch = 0; batch < 8; batch++) {
        spark.sql(
            String.format(
                Locale.ROOT,
                "INSERT INTO %s SELECT /*+ REPARTITION(1) */ id, concat('c', id %% 97),"
                    + " cast(id * 1.25 AS DECIMAL(12, 2)),"
                    + " IF(id %% 5 = 0, NULL, named_struct('city', concat('city', id %% 13),"
                    + " 'zip', cast(id %% 1000 AS INT))),"
                    + " IF(id %% 7 = 0, NULL, array(concat('t', id %% 3), NULL)),"
                    + " date_add(DATE '2026-06-01', cast(id %% 2 AS INT))"
                    + " FROM range(%d, %d)",
                table,
                batch * 500,
                (batch + 1) * 500));
      }
      spark.sql("DELETE FROM " + table + " WHERE id % 9 = 0");
      spark.sql("UPDATE " + table + " SET amount = amount + 1 WHERE id % 11 = 0");
      System.out.println(DONE);
      System.out.flush();
    }
  }
}
