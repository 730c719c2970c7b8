package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.care.CareRefusedException;
import io.icecompact.care.ExpireSnapshotsStep;
import io.icecompact.care.OrphanFilesStep;
import io.icecompact.care.SharingLookup;
import io.icecompact.care.TableCare;
import io.icecompact.care.catalog.GlueCatalogListing;
import io.icecompact.care.catalog.ThrottlingRetry;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.EveryTableReaches;
import io.icecompact.testkit.FaultyS3;
import io.icecompact.testkit.LocalGlue;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 41: destructive care on a shared AWS account. Iceberg's real {@code GlueCatalog} on {@link
 * LocalGlue} and S3FileIO through {@link FaultyS3} hold our table {@code ours.orders} (inside the
 * deployment's allowed prefix {@code s3://ours/warehouse/}), a sharer {@code ours.writer} whose
 * {@code write.data.path} is our {@code data/}, and other teams' entries this role cannot read: an
 * Iceberg table and a Lake Formation-registered one in a bucket answering 403, a Hive table there,
 * a resource link to another account's table, a view. Glue throttles the listing beyond the SDK's
 * own retries. Expiry and orphan removal must still run for our table, delete exactly the files
 * computed here from Iceberg's own API, keep every file the sharer reaches, and name the tables
 * they could not check; an unreadable table inside the allowed prefix must still refuse.
 */
class SharedAccountCareTest {
  static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(3, 3, 50, 2, 1, 4, true);
  static final Clock FIVE_DAYS_LATER = Clock.offset(Clock.systemUTC(), Duration.ofDays(5));
  static final DeploymentScope SCOPE = DeploymentScope.parse(null, "s3://ours/warehouse/");

  @TempDir java.nio.file.Path dir;

  private LocalS3 s3;
  private FaultyS3 faulty;
  private LocalGlue glue;
  private Map<String, String> properties;
  private TableAccess access;
  private Catalog catalog;
  private final List<Duration> waits = new CopyOnWriteArrayList<>();
  private ThrottlingRetry retry;

  @BeforeEach
  void sharedAccount() {
    s3 = new LocalS3().start();
    s3.createBucket("ours");
    s3.createBucket("other-team");
    faulty = new FaultyS3(s3, 41).start();
    glue = new LocalGlue().start();
    properties = new TreeMap<>(glue.icebergProperties("s3://ours/warehouse"));
    properties.putAll(faulty.icebergProperties());
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    access = new TableAccess(properties);
    catalog = access.catalog();
    retry = new ThrottlingRetry(6, Duration.ofMillis(200), Duration.ofSeconds(5), waits::add);

    // other teams: written while readable, then their bucket answers 403 to this role
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("finance"));
    for (String name : List.of("ledger", "governed")) {
      Table table =
          catalog
              .buildTable(TableIdentifier.of("finance", name), FragmentedTable.SCHEMA)
              .withPartitionSpec(PartitionSpec.unpartitioned())
              .withLocation("s3://other-team/wh/" + name)
              .create();
      SharedLocationsCareTest.append(table, 2, 1_000_000);
    }
    glue.registerWithLakeFormation("finance", "governed");
    glue.putTable(
        "finance",
        "raw_events",
        Map.of("classification", "parquet", "EXTERNAL", "TRUE"),
        "s3://other-team/hive/raw_events",
        "EXTERNAL_TABLE");
    glue.putTable("finance", "daily", Map.of(), null, "VIRTUAL_VIEW");
    glue.putResourceLink("shared_links", "partner_orders", "999999999999", "sales", "orders");
    faulty.inject(S3FaultRule.of(S3Fault.accessDenied()).onBucket("other-team"));
  }

  @AfterEach
  void close() throws Exception {
    access.close();
    glue.close();
    faulty.close();
    s3.close();
  }

  @Test
  void expiryAndOrphanRemovalRunForOurTableAndDeleteExactlyWhatNothingReaches() {
    Table orders = ours();
    Table writer = FragmentedTable.create(catalog, id("ours.writer"), SMALL);
    writer
        .updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, orders.location() + "/data")
        .commit();
    List<DataFile> writersFiles =
        SharedLocationsCareTest.append(catalog.loadTable(id("ours.writer")), 3, 8_000_000);
    Map<String, Long> writerRows = LiveRows.multiset(catalog.loadTable(id("ours.writer")));
    Map<String, Long> orderRows = LiveRows.multiset(catalog.loadTable(id("ours.orders")));
    String orphan = plant(orders, "data/planted-orphan.parquet");
    Set<String> expiredAway = onlyOldSnapshotsReach(catalog.loadTable(id("ours.orders")));
    assertThat(expiredAway)
        .as("a deleted data file, old manifests, manifest lists")
        .hasSizeGreaterThan(3);
    Set<String> before = objects("ours");

    // the listing is throttled beyond the SDK's own three attempts
    glue.throttleNext(4, "GetTables");
    ExpireSnapshotsStep.Report expiry =
        new ExpireSnapshotsStep(lookup(SCOPE), "ours.orders")
            .run(catalog.loadTable(id("ours.orders")));
    assertThat(waits).as("our retry waited the throttling out").isNotEmpty();
    Set<String> afterExpiry = objects("ours");
    glue.throttleNext(4, "GetDatabases");
    OrphanFilesStep.Report orphans =
        new OrphanFilesStep(
                lookup(SCOPE),
                "ours.orders",
                OrphanFilesStep.DEFAULT_MIN_AGE,
                null,
                FIVE_DAYS_LATER,
                t -> {})
            .run(catalog.loadTable(id("ours.orders")));
    Set<String> afterOrphans = objects("ours");

    assertThat(expiry.problems()).isEmpty();
    assertThat(orphans.problems()).isEmpty();
    assertThat(difference(before, afterExpiry)).as("expiry deleted").isEqualTo(expiredAway);
    assertThat(difference(afterExpiry, afterOrphans))
        .as("orphan removal deleted")
        .containsExactly(orphan);
    assertThat(afterOrphans)
        .as("the sharer's files in our data/")
        .containsAll(locations(writersFiles));
    assertThat(expiry.sharing()).contains("ours.writer").contains("write.data.path");
    assertThat(orphans.sharedFilesKept().count()).isEqualTo(writersFiles.size());
    for (var checked : List.of(expiry.catalogChecked(), orphans.catalogChecked())) {
      assertThat(checked.listed())
          .as("ledger, governed, raw_events, daily, partner_orders, writer")
          .isEqualTo(6);
      assertThat(checked.loaded()).as("only the writer could be read").isEqualTo(1);
      assertThat(checked.notChecked())
          .extracting(line -> line.substring(0, line.indexOf(':')))
          .containsExactly(
              "finance.governed",
              "finance.ledger",
              "finance.raw_events",
              "shared_links.partner_orders");
      assertThat(checked.notChecked().get(0))
          .startsWith(
              "finance.governed: not checked: outside this deployment's locations (location"
                  + " s3://other-team/wh/governed, metadata "
                  + metadataLocation("finance", "governed")
                  + "), its metadata cannot be read: AccessDeniedException: Access Denied (Service:"
                  + " S3, Status Code: 403")
          .endsWith(
              "; it is registered with Lake Formation (IsRegisteredWithLakeFormation): reading it"
                  + " needs Lake Formation permissions the care role may lack");
      assertThat(checked.notChecked().get(1))
          .startsWith(
              "finance.ledger: not checked: outside this deployment's locations (location"
                  + " s3://other-team/wh/ledger, metadata s3://other-team/wh/ledger/metadata/")
          .contains("its metadata cannot be read: AccessDeniedException: Access Denied")
          .doesNotContain("Lake Formation");
      assertThat(checked.notChecked().get(2))
          .isEqualTo(
              "finance.raw_events: not an Iceberg table (EXTERNAL_TABLE) at"
                  + " s3://other-team/hive/raw_events, apart from this table's folders: its"
                  + " partitions' own locations are not checked");
      assertThat(checked.notChecked().get(3))
          .startsWith(
              "shared_links.partner_orders: resource link to 999999999999/sales.orders"
                  + " (AccessDeniedException: Insufficient privileges to access catalog"
                  + " 999999999999")
          .endsWith(": not checked: another catalog's table this role cannot read");
    }
    assertThat(expiry.summary()).endsWith(", 4 of the catalog's tables not checked");

    // every file any table reaches is still there, the other teams' too (their bucket readable
    // again)
    faulty.clearRules();
    assertThat(EveryTableReaches.missingFiles(catalog)).isEmpty();
    assertThat(LiveRows.multiset(catalog.loadTable(id("ours.writer")))).isEqualTo(writerRows);
    assertThat(LiveRows.multiset(catalog.loadTable(id("ours.orders")))).isEqualTo(orderRows);
  }

  @Test
  void anUnreadableTableInsideTheAllowedPrefixStillRefusesAndNothingIsDeleted() {
    Table orders = ours();
    Table neighbour = FragmentedTable.create(catalog, id("ours.neighbour"), SMALL);
    String orphan = plant(orders, "data/planted-orphan.parquet");
    faulty.inject(
        S3FaultRule.of(S3Fault.accessDenied())
            .onBucket("ours")
            .onKeys("^/?warehouse/ours.db/neighbour/"));
    Set<String> before = objects("ours");

    assertThatThrownBy(
            () ->
                new ExpireSnapshotsStep(lookup(SCOPE), "ours.orders")
                    .run(catalog.loadTable(id("ours.orders"))))
        .isInstanceOf(CareRefusedException.class)
        .hasMessageStartingWith(
            "Refusing expire-snapshots on ours.orders: table ours.neighbour of the catalog cannot be loaded (")
        .hasMessageContaining("Access Denied")
        .hasMessageContaining(
            "so it may share ours.orders's files (it lies inside this deployment's locations)")
        .hasMessageEndingWith("Nothing was deleted.");
    assertThatThrownBy(
            () ->
                new OrphanFilesStep(
                        lookup(SCOPE),
                        "ours.orders",
                        OrphanFilesStep.DEFAULT_MIN_AGE,
                        null,
                        FIVE_DAYS_LATER,
                        t -> {})
                    .run(catalog.loadTable(id("ours.orders"))))
        .isInstanceOf(CareRefusedException.class)
        .hasMessageStartingWith("Refusing remove-orphans on ours.orders: table ours.neighbour");
    assertThat(objects("ours")).isEqualTo(before).contains(orphan);
    assertThat(neighbour.location()).startsWith("s3://ours/warehouse/");
  }

  @Test
  void tableCareUsesTheDeploymentsLocationsAndWithoutBoundsRefusesAsBefore() {
    ours();
    TableCare.Outcome scoped =
        new TableCare(access, "ours.orders", null, () -> {}, SCOPE)
            .run(List.of(CareStep.EXPIRE_SNAPSHOTS), line -> {})
            .get(0);
    assertThat(scoped.status()).isEqualTo(TableCare.Status.DONE);
    assertThat(scoped.summary())
        .startsWith("expired ")
        .endsWith(", 4 of the catalog's tables not checked");

    TableCare.Outcome unbounded =
        new TableCare(access, "ours.orders", null, () -> {})
            .run(List.of(CareStep.EXPIRE_SNAPSHOTS), line -> {})
            .get(0);
    assertThat(unbounded.status()).isEqualTo(TableCare.Status.REFUSED);
    assertThat(unbounded.summary())
        .contains("table finance.governed of the catalog cannot be loaded")
        .contains("Lake Formation")
        .contains("(this deployment sets no location bounds)");
  }

  // --- helpers ---

  /** Our table, with snapshots its retention expires and a data file deleted since. */
  private Table ours() {
    FragmentedTable.create(catalog, id("ours.orders"), SMALL);
    Table orders = catalog.loadTable(id("ours.orders"));
    orders
        .updateProperties()
        .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1")
        .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1")
        .commit();
    DataFile first;
    try (CloseableIterable<FileScanTask> tasks = orders.newScan().planFiles()) {
      first = tasks.iterator().next().file();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    orders.newDelete().deleteFile(first).commit();
    return catalog.loadTable(id("ours.orders"));
  }

  private SharingLookup lookup(DeploymentScope scope) {
    // the Glue client of LocalGlue.newClient: the SDK's retries wait milliseconds, not seconds
    // (TableCare's test below goes through Iceberg's own client, GlueCatalogListing.of)
    return new SharingLookup(
        catalog, new GlueCatalogListing(glue.newClient(), null, retry), scope, retry);
  }

  /**
   * What only the snapshots before the current one reach (each snapshot's manifest list, manifests
   * and the data files live in them), from Iceberg's API: what expiry with a retention of one
   * snapshot must delete.
   */
  private static Set<String> onlyOldSnapshotsReach(Table table) {
    Set<String> old = new TreeSet<>();
    Set<String> current = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      boolean isCurrent = snapshot.snapshotId() == table.currentSnapshot().snapshotId();
      Set<String> into = isCurrent ? current : old;
      into.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        into.add(manifest.path());
        try (CloseableIterable<? extends ContentFile<?>> files =
            manifest.content() == ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          files.forEach(file -> into.add(file.location()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    old.removeAll(current);
    return old;
  }

  private Set<String> objects(String bucket) {
    Set<String> keys = new TreeSet<>();
    s3.client().listObjectsV2Paginator(r -> r.bucket(bucket)).contents().stream()
        .map(S3Object::key)
        .forEach(key -> keys.add("s3://" + bucket + "/" + key));
    return keys;
  }

  private static Set<String> difference(Set<String> before, Set<String> after) {
    Set<String> gone = new TreeSet<>(before);
    gone.removeAll(after);
    return gone;
  }

  private static List<String> locations(List<DataFile> files) {
    List<String> locations = new ArrayList<>();
    files.forEach(f -> locations.add(f.location()));
    return locations;
  }

  private String metadataLocation(String database, String table) {
    faulty.clearRules();
    try {
      return SharedLocationsCareTest.metadataFile(
          catalog.loadTable(TableIdentifier.of(database, table)));
    } finally {
      faulty.inject(S3FaultRule.of(S3Fault.accessDenied()).onBucket("other-team"));
    }
  }

  private static String plant(Table table, String relative) {
    String location = table.location() + "/" + relative;
    try (OutputStream out = table.io().newOutputFile(location).createOrOverwrite()) {
      out.write("an orphan no table reaches".getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return location;
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.parse(name);
  }
}
