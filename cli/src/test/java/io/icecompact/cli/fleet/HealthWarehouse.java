package io.icecompact.cli.fleet;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LocalWarehouse;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;

/**
 * The lab of tables of docs/fleet.md at a test's scale, in a local warehouse: namespace {@code lab}
 * holds the six shapes its health table ranks, namespace {@code ops} three tables whose policy
 * decides.
 */
public final class HealthWarehouse {
  /** 60 files of 200 rows in 12 day partitions, one snapshot per file: what a stream leaves. */
  public static final String STREAM = "lab.stream";

  /** 90 files in 48 hour partitions, at most two per hour (late rows), 8 snapshots. */
  public static final String HOURLY = "lab.hourly";

  /** 80 files in 16 days, 12 days compacted by a job that committed only those: 32 files left. */
  public static final String LEFTOVER = "lab.leftover";

  /** v2 merge-on-read: 8 files in 4 days, position deletes on every file and equality deletes. */
  public static final String MOR2 = "lab.mor2";

  /** v3: 15 files in 3 days, deletion vectors on 6 of them. */
  public static final String DV3 = "lab.dv3";

  /** 20 files in 4 days compacted to 4, then one append. */
  public static final String FRESH = "lab.fresh";

  public static final String OPT_OUT = "ops.optout";
  public static final String RECENT = "ops.recent";
  public static final String BAD = "ops.bad";

  static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(3, 5, 200, 2, 0, 0, true);

  private HealthWarehouse() {}

  public static void build(Path warehouse) {
    Map<String, String> catalog = LocalWarehouse.catalogProperties(warehouse);
    try (TableAccess access = new TableAccess(catalog)) {
      Catalog c = access.catalog();
      FragmentedTable.create(
          c, TableIdentifier.parse(STREAM), new FragmentedTable.Shape(12, 5, 200, 2, 0, 0, true));
      hourly(c, TableIdentifier.parse(HOURLY));
      FragmentedTable.create(
          c, TableIdentifier.parse(LEFTOVER), new FragmentedTable.Shape(16, 5, 200, 2, 0, 0, true));
      FragmentedTable.create(
          c, TableIdentifier.parse(MOR2), new FragmentedTable.Shape(4, 2, 2000, 2, 8, 40, true));
      FragmentedTable.create(
          c, TableIdentifier.parse(DV3), new FragmentedTable.Shape(3, 5, 400, 3, 6, 0, true));
      FragmentedTable.create(
          c, TableIdentifier.parse(FRESH), new FragmentedTable.Shape(4, 5, 200, 2, 0, 0, true));

      FragmentedTable.create(c, TableIdentifier.parse(OPT_OUT), SMALL)
          .updateProperties()
          .set("icecompact.enabled", "false")
          .commit();
      FragmentedTable.create(c, TableIdentifier.parse(RECENT), SMALL);
      FragmentedTable.create(c, TableIdentifier.parse(BAD), SMALL)
          .updateProperties()
          .set("icecompact.option.min-input-files", "five")
          .commit();
    }
    // A partial-progress job whose last commits failed leaves what this job leaves: the days it got
    // through compacted, the others as they were.
    compact(catalog, LEFTOVER, "ordered_at < '2026-06-13'");
    compact(catalog, FRESH, null);
    appendOne(catalog, FRESH, 2);
    compact(catalog, RECENT, "ordered_at < '2026-06-02'");
    try (TableAccess access = new TableAccess(catalog)) {
      access.loadTable(RECENT).updateProperties().set("icecompact.min-interval", "PT6H").commit();
    }
  }

  static JobResult compact(Map<String, String> catalog, String table, String where) {
    JobResult result =
        new EmbeddedJobRunner(2, ProgressListener.NONE)
            .run(new JobSpec(null, table, catalog, Map.of(), null, where, null));
    if (result.status() != JobStatus.COMMITTED) {
      throw new IllegalStateException(table + ": " + result.status() + " " + result.reason());
    }
    return result;
  }

  /** One more small file in day {@code day}: a writer after the compaction. */
  static void appendOne(Map<String, String> catalog, String name, int day) {
    try (TableAccess access = new TableAccess(catalog)) {
      Table table = access.loadTable(name);
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        rows.add(FragmentedTable.newOrder(1_000_000 + i, day));
      }
      table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
    }
  }

  /**
   * Hourly partitions written once an hour: append {@code j} writes hours {@code 6j..6j+5}, and a
   * second, late file for each of the six hours before them.
   */
  private static void hourly(Catalog catalog, TableIdentifier id) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(Namespace.of(id.namespace().levels()));
    }
    Table table =
        catalog.createTable(
            id,
            FragmentedTable.SCHEMA,
            PartitionSpec.builderFor(FragmentedTable.SCHEMA).hour("ordered_at").build(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    OffsetDateTime start = OffsetDateTime.of(2026, 6, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    long orderId = 0;
    for (int append = 0; append < 8; append++) {
      AppendFiles files = table.newAppend();
      for (int hour = append * 6 - 6; hour < append * 6 + 6; hour++) {
        if (hour < 0) {
          continue;
        }
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          Record row = FragmentedTable.newOrder(orderId++, 0);
          row.setField("ordered_at", start.plusHours(hour).plusMinutes(i));
          rows.add(row);
        }
        files.appendFile(FragmentedTable.dataFile(table, rows));
      }
      files.commit();
    }
  }
}
