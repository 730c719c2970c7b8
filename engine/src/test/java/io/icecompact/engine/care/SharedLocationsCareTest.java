package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.care.CareRefusedException;
import io.icecompact.care.ExpireSnapshotsStep;
import io.icecompact.care.OrphanFilesStep;
import io.icecompact.care.TableCare;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.testkit.EveryTableReaches;
import io.icecompact.testkit.LocalS3;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 24: a care step never deletes a file another table of the catalog reaches. Each case builds
 * the sharing a hostile user found (a registered copy, a {@code write.data.path} into another
 * table's {@code data/} or into a folder both use, a table nested in another's location, a catalog
 * entry that no longer loads), runs expiry and orphan removal with every file looking five days
 * old, and asserts the live rows of every table and that every file any snapshot, ref or metadata
 * log of any table reaches still exists ({@link EveryTableReaches}, written apart from the care
 * code). A planted old orphan shows the steps still remove what nothing reaches, or, when they
 * refuse, that they deleted nothing.
 */
@Execution(ExecutionMode.CONCURRENT)
class SharedLocationsCareTest {
  static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(3, 3, 50, 2, 1, 4, true);
  static final Clock FIVE_DAYS_LATER = Clock.offset(Clock.systemUTC(), Duration.ofDays(5));

  @TempDir Path dir;

  /**
   * A catalog for one test: JDBC (SQLite) or Hadoop on local files, or JDBC on the local S3 server.
   */
  private record Warehouse(TableAccess access, Catalog catalog, AutoCloseable server)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      access.close();
      if (server != null) {
        server.close();
      }
    }
  }

  private Warehouse warehouse(String kind) throws IOException {
    Files.createDirectories(dir.resolve("wh"));
    Map<String, String> properties;
    LocalS3 s3 = null;
    switch (kind) {
      case "jdbc" -> properties = LocalWarehouse.catalogProperties(dir.resolve("wh"));
      case "hadoop" ->
          properties = Map.of("type", "hadoop", "warehouse", dir.resolve("wh").toString());
      case "s3" -> {
        s3 = new LocalS3().start();
        properties = s3.jdbcCatalogProperties(s3.createBucket("shared"), dir.resolve("catalog.db"));
      }
      default -> throw new IllegalArgumentException(kind);
    }
    TableAccess access = new TableAccess(properties);
    return new Warehouse(access, access.catalog(), s3);
  }

  // --- a registered copy: one location, two names ---

  @ParameterizedTest(name = "{0}, {1} first")
  @org.junit.jupiter.params.provider.CsvSource({"jdbc, copy", "jdbc, src", "s3, copy", "s3, src"})
  void aRegisteredCopyAndItsSourceKeepEachOthersFiles(String kind, String first) throws Exception {
    try (Warehouse w = warehouse(kind)) {
      Catalog catalog = w.catalog();
      Table src = FragmentedTable.create(catalog, id("db.src"), SMALL);
      catalog.registerTable(id("db.copy"), metadataFile(src));
      // the source goes on writing into the shared folders; the copy sets a retention of its own
      append(catalog.loadTable(id("db.src")), 5, 9_000_000);
      for (String name : List.of("db.src", "db.copy")) {
        catalog
            .loadTable(id(name))
            .updateProperties()
            .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1")
            .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1")
            .commit();
      }
      Map<String, Map<String, Long>> rows = rows(catalog, "db.src", "db.copy");
      String orphan = plant(catalog.loadTable(id("db.src")), "data/planted-orphan.parquet");

      List<String> order =
          first.equals("copy") ? List.of("db.copy", "db.src") : List.of("db.src", "db.copy");
      List<ExpireSnapshotsStep.Report> expiries = new ArrayList<>();
      List<OrphanFilesStep.Report> orphans = new ArrayList<>();
      for (String name : order) {
        expiries.add(new ExpireSnapshotsStep(catalog, name).run(catalog.loadTable(id(name))));
        orphans.add(orphanStep(catalog, name).run(catalog.loadTable(id(name))));
      }

      assertThat(EveryTableReaches.missingFiles(catalog))
          .as("files some table reaches, gone")
          .isEmpty();
      assertThat(rows(catalog, "db.src", "db.copy")).isEqualTo(rows);
      expiries.forEach(r -> assertThat(r.problems()).isEmpty());
      orphans.forEach(r -> assertThat(r.problems()).isEmpty());
      assertThat(expiries.get(0).snapshotsExpired()).isPositive();
      assertThat(expiries.get(0).sharedFilesKept().count())
          .as("the first table's expired snapshots' files are the other's live files")
          .isPositive();
      assertThat(expiries.get(0).sharing()).contains(order.get(1)).contains("location");
      if (first.equals("copy")) {
        assertThat(orphans.get(0).sharedFilesKept().count())
            .as("the source's newer files, manifests and metadata: unreachable from the copy")
            .isPositive();
      }
      assertThat(exists(src, orphan)).as("an old file no table reaches still goes").isFalse();
      System.err.printf(
          "%s, %s first: expiry kept %d shared files, orphans kept %d; %d files reached, all present%n",
          kind,
          first,
          expiries.get(0).sharedFilesKept().count(),
          orphans.get(0).sharedFilesKept().count(),
          EveryTableReaches.filesReached(catalog));
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void gcDisabledRefusesExpiryAndOrphanRemovalAndDeletesNothing(boolean onBoth) throws Exception {
    try (Warehouse w = warehouse("jdbc")) {
      Catalog catalog = w.catalog();
      Table src = FragmentedTable.create(catalog, id("db.src"), SMALL);
      catalog.registerTable(id("db.copy"), metadataFile(src));
      append(catalog.loadTable(id("db.src")), 3, 9_000_000);
      for (String name : onBoth ? List.of("db.copy", "db.src") : List.of("db.copy")) {
        catalog
            .loadTable(id(name))
            .updateProperties()
            .set(TableProperties.GC_ENABLED, "false")
            .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1")
            .commit();
      }
      Map<String, Map<String, Long>> rows = rows(catalog, "db.src", "db.copy");
      String orphan = plant(catalog.loadTable(id("db.src")), "data/planted-orphan.parquet");
      int reached = EveryTableReaches.filesReached(catalog);

      List<TableCare.Outcome> copyCare =
          new TableCare(w.access(), "db.copy", null, () -> {})
              .run(List.of(CareStep.EXPIRE_SNAPSHOTS, CareStep.REMOVE_ORPHANS), line -> {});
      assertThat(copyCare)
          .extracting(TableCare.Outcome::status)
          .as("each step refuses on its own: no failure hides the other's refusal")
          .containsExactly(TableCare.Status.REFUSED, TableCare.Status.REFUSED);
      assertThat(copyCare.get(0).summary())
          .contains("Refusing expire-snapshots on db.copy: gc.enabled=false")
          .contains(
              "Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)");
      assertThat(copyCare.get(1).summary())
          .contains("Refusing remove-orphans on db.copy: gc.enabled=false")
          .contains(
              "Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)")
          .endsWith("Nothing was deleted.");
      assertThat(copyCare).allMatch(TableCare.Outcome::failed);
      if (onBoth) {
        assertThatThrownBy(() -> orphanStep(catalog, "db.src").run(catalog.loadTable(id("db.src"))))
            .isInstanceOf(CareRefusedException.class)
            .hasMessageContaining("gc.enabled=false");
      }

      assertThat(exists(src, orphan))
          .as("refused: nothing deleted, not even a true orphan")
          .isTrue();
      assertThat(EveryTableReaches.missingFiles(catalog)).isEmpty();
      assertThat(EveryTableReaches.filesReached(catalog)).isEqualTo(reached);
      assertThat(rows(catalog, "db.src", "db.copy")).isEqualTo(rows);
    }
  }

  // --- write.data.path into another table's folder, or into a folder both use ---

  @ParameterizedTest
  @ValueSource(strings = {"jdbc", "hadoop", "s3"})
  void aTableWritingIntoAnotherTablesDataFolderKeepsItsFiles(String kind) throws Exception {
    try (Warehouse w = warehouse(kind)) {
      Catalog catalog = w.catalog();
      Table a = FragmentedTable.create(catalog, id("db.a"), SMALL);
      Table b = FragmentedTable.create(catalog, id("db.b"), SMALL);
      b.updateProperties()
          .set(TableProperties.WRITE_DATA_LOCATION, a.location() + "/data")
          .commit();
      List<DataFile> intoA = append(catalog.loadTable(id("db.b")), 4, 7_000_000);
      assertThat(intoA)
          .allSatisfy(f -> assertThat(f.location()).startsWith(a.location() + "/data/"));
      Map<String, Map<String, Long>> rows = rows(catalog, "db.a", "db.b");
      String orphan = plant(a, "data/planted-orphan.parquet");

      OrphanFilesStep.Report report =
          orphanStep(catalog, "db.a").run(catalog.loadTable(id("db.a")));

      assertThat(report.problems()).isEmpty();
      assertThat(report.sharedFilesKept().count())
          .as("db.b's files and nothing else kept as shared")
          .isEqualTo(4);
      assertThat(report.sharing()).contains("db.b").contains("write.data.path");
      assertThat(exists(a, orphan)).isFalse();
      assertThat(EveryTableReaches.missingFiles(catalog)).isEmpty();
      assertThat(rows(catalog, "db.a", "db.b")).isEqualTo(rows);

      // db.b's own sweep: its data folder is outside its location, so it is not listed at all
      OrphanFilesStep.Report bReport =
          orphanStep(catalog, "db.b").run(catalog.loadTable(id("db.b")));
      assertThat(bReport.skippedFolders())
          .singleElement()
          .asString()
          .contains("may hold other tables' files");
      assertThat(EveryTableReaches.missingFiles(catalog)).isEmpty();
    }
  }

  @Test
  void twoTablesWritingIntoOneFolderOutsideBothKeepEverything() throws Exception {
    try (Warehouse w = warehouse("jdbc")) {
      Catalog catalog = w.catalog();
      String shared = dir.resolve("wh/shared-data").toString();
      for (String name : List.of("db.a", "db.b")) {
        Table table = FragmentedTable.create(catalog, id(name), SMALL);
        table.updateProperties().set(TableProperties.WRITE_DATA_LOCATION, shared).commit();
        append(catalog.loadTable(id(name)), 2, name.equals("db.a") ? 7_000_000 : 8_000_000);
      }
      Map<String, Map<String, Long>> rows = rows(catalog, "db.a", "db.b");
      Path foreign =
          Files.writeString(
              Path.of(shared, "not-any-tables.parquet"), "kept: the folder is shared");
      CareTestBase.ageFile(foreign, Duration.ofDays(5));

      for (String name : List.of("db.a", "db.b")) {
        new ExpireSnapshotsStep(catalog, name).run(catalog.loadTable(id(name)));
        OrphanFilesStep.Report report = orphanStep(catalog, name).run(catalog.loadTable(id(name)));
        assertThat(report.skippedFolders()).singleElement().asString().contains(shared);
      }
      assertThat(foreign).exists();
      assertThat(EveryTableReaches.missingFiles(catalog)).isEmpty();
      assertThat(rows(catalog, "db.a", "db.b")).isEqualTo(rows);
    }
  }

  // --- a table inside another table's location ---

  @Test
  void aTableNestedInAnotherTablesDataFolderKeepsItsFiles() throws Exception {
    try (Warehouse w = warehouse("jdbc")) {
      Catalog catalog = w.catalog();
      Table outer = FragmentedTable.create(catalog, id("db.outer"), SMALL);
      Table inner =
          catalog
              .buildTable(id("db.inner"), FragmentedTable.SCHEMA)
              .withPartitionSpec(
                  PartitionSpec.builderFor(FragmentedTable.SCHEMA).day("ordered_at").build())
              .withLocation(outer.location() + "/data/nested")
              .create();
      append(inner, 3, 6_000_000);
      Map<String, Map<String, Long>> rows = rows(catalog, "db.outer", "db.inner");
      String orphan = plant(outer, "data/planted-orphan.parquet");

      ExpireSnapshotsStep.Report expiry =
          new ExpireSnapshotsStep(catalog, "db.outer").run(catalog.loadTable(id("db.outer")));
      OrphanFilesStep.Report report =
          orphanStep(catalog, "db.outer").run(catalog.loadTable(id("db.outer")));

      assertThat(expiry.sharing()).contains("db.inner").contains("is inside");
      assertThat(report.sharedFilesKept().count())
          .as("the inner table's data files, manifests, manifest lists and metadata files")
          .isGreaterThan(3);
      assertThat(exists(outer, orphan)).isFalse();
      assertThat(EveryTableReaches.missingFiles(catalog)).isEmpty();
      assertThat(rows(catalog, "db.outer", "db.inner")).isEqualTo(rows);
    }
  }

  // --- a catalog entry that does not load ---

  @ParameterizedTest
  @ValueSource(strings = {"jdbc", "hadoop"})
  void aTableThatCannotBeLoadedMayShareSoBothStepsRefuse(String kind) throws Exception {
    try (Warehouse w = warehouse(kind)) {
      Catalog catalog = w.catalog();
      Table a = FragmentedTable.create(catalog, id("db.a"), SMALL);
      Table broken = FragmentedTable.create(catalog, id("db.broken"), SMALL);
      a.updateProperties().set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1").commit();
      // its current metadata file gone (as in issue 24's report): the catalog lists the table,
      // loading it
      // fails (a corrupt file would fail too, after Iceberg's retries of a minute or more)
      Files.delete(Path.of(metadataFile(broken).replaceFirst("^file:", "")));
      assertThatThrownBy(() -> catalog.loadTable(id("db.broken")))
          .isInstanceOf(RuntimeException.class);
      Map<String, Long> rows = LiveRows.multiset(catalog.loadTable(id("db.a")));
      int snapshots = snapshotCount(catalog.loadTable(id("db.a")));
      String orphan = plant(a, "data/planted-orphan.parquet");

      assertThatThrownBy(() -> orphanStep(catalog, "db.a").run(catalog.loadTable(id("db.a"))))
          .isInstanceOf(CareRefusedException.class)
          .hasMessageStartingWith(
              "Refusing remove-orphans on db.a: table db.broken of the catalog cannot be loaded")
          .hasMessageContaining("so it may share db.a's files")
          .hasMessageEndingWith("Nothing was deleted.");
      assertThatThrownBy(
              () -> new ExpireSnapshotsStep(catalog, "db.a").run(catalog.loadTable(id("db.a"))))
          .isInstanceOf(CareRefusedException.class)
          .hasMessageStartingWith("Refusing expire-snapshots on db.a: table db.broken");

      assertThat(exists(a, orphan)).isTrue();
      assertThat(snapshotCount(catalog.loadTable(id("db.a")))).isEqualTo(snapshots);
      assertThat(LiveRows.multiset(catalog.loadTable(id("db.a")))).isEqualTo(rows);
    }
  }

  // --- helpers ---

  private static OrphanFilesStep orphanStep(Catalog catalog, String name) {
    return new OrphanFilesStep(
        catalog, name, OrphanFilesStep.DEFAULT_MIN_AGE, null, FIVE_DAYS_LATER, t -> {});
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.parse(name);
  }

  static String metadataFile(Table table) {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }

  private static int snapshotCount(Table table) {
    int count = 0;
    for (var ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  /** {@code files} appends of one new order each (ids from {@code firstId}); the files written. */
  static List<DataFile> append(Table table, int files, long firstId) {
    List<DataFile> written = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      List<Record> rows = List.of(FragmentedTable.newOrder(firstId + i, i % 3));
      DataFile file = FragmentedTable.dataFile(table, rows);
      table.newAppend().appendFile(file).commit();
      written.add(file);
    }
    return written;
  }

  private static Map<String, Map<String, Long>> rows(Catalog catalog, String... tables) {
    Map<String, Map<String, Long>> rows = new LinkedHashMap<>();
    for (String table : tables) {
      rows.put(table, LiveRows.multiset(catalog.loadTable(id(table))));
    }
    return rows;
  }

  /** A file no table reaches, at {@code relative} under the table's location. */
  private static String plant(Table table, String relative) {
    String location = table.location() + "/" + relative;
    try (OutputStream out = table.io().newOutputFile(location).createOrOverwrite()) {
      out.write("an orphan no table reaches".getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return location;
  }

  private static boolean exists(Table table, String location) {
    return table.io().newInputFile(location).exists();
  }
}
