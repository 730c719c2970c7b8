package io.icecompact.care.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.testkit.LocalGlue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Glue listing against {@link LocalGlue}: pages of 100, what each entry becomes, and throttling
 * waited out past the SDK's own retries.
 */
class GlueCatalogListingTest {
  private final List<Duration> waits = new ArrayList<>();
  private LocalGlue glue;
  private GlueCatalogListing listing;

  @BeforeEach
  void start() {
    glue = new LocalGlue().start();
    ThrottlingRetry retry =
        new ThrottlingRetry(6, Duration.ofMillis(1), Duration.ofMillis(5), waits::add);
    listing = GlueCatalogListing.of(glue.icebergProperties("s3://w/wh"), retry);
  }

  @AfterEach
  void stop() {
    listing.close();
    glue.close();
  }

  private void iceberg(String database, String name) {
    glue.putTable(
        database,
        name,
        Map.of(
            "table_type", "iceberg", "metadata_location", "s3://w/wh/" + name + "/metadata/1.json"),
        "s3://w/wh/" + name,
        "EXTERNAL_TABLE");
  }

  @Test
  void everyPageOfEveryDatabaseIsListedWithItsLocations() {
    for (int i = 0; i < 230; i++) {
      iceberg("big", String.format("t%03d", i));
    }
    iceberg("small", "self");
    List<ListedTable> tables = listing.tablesOtherThan(TableIdentifier.of("small", "self"));
    assertThat(tables).hasSize(230);
    assertThat(glue.calls("GetTables")).as("3 pages of big, 1 of small").isEqualTo(4);
    assertThat(tables.get(229))
        .isEqualTo(
            ListedTable.iceberg(
                TableIdentifier.of("big", "t229"),
                "s3://w/wh/t229",
                "s3://w/wh/t229/metadata/1.json",
                false));
  }

  @Test
  void eachKindOfEntryIsToldApart() {
    iceberg("db", "ice");
    glue.registerWithLakeFormation("db", "ice");
    glue.putTable("db", "hive", Map.of("EXTERNAL", "TRUE"), "s3://x/hive", "EXTERNAL_TABLE");
    glue.putTable("db", "view", Map.of(), null, "VIRTUAL_VIEW");
    glue.putResourceLink("db", "here", null, "db", "ice");
    glue.putResourceLink("db", "there", "999999999999", "sales", "orders");
    glue.putResourceLink("db", "same-id", LocalGlue.CATALOG_ID, "db", "ice");

    List<ListedTable> tables = listing.tablesOtherThan(TableIdentifier.of("db", "none"));

    assertThat(tables)
        .extracting(t -> t.id().name() + " " + t.kind())
        .containsExactly(
            "here RESOURCE_LINK",
            "hive OTHER_FORMAT",
            "ice ICEBERG",
            "same-id ICEBERG",
            "there RESOURCE_LINK",
            "view VIEW");
    assertThat(tables.get(0).targetInThisCatalog()).isTrue();
    assertThat(tables.get(0).target()).isEqualTo("this catalog/db.ice");
    assertThat(tables.get(1).format()).isEqualTo("EXTERNAL_TABLE");
    assertThat(tables.get(2).lakeFormation()).isTrue();
    // glue.id is unset, so a link naming a catalog id is read through GetTable: here it is ours
    assertThat(tables.get(3).metadataLocation()).isEqualTo("s3://w/wh/ice/metadata/1.json");
    assertThat(tables.get(4).targetInThisCatalog()).isFalse();
    assertThat(tables.get(4).target())
        .startsWith("999999999999/sales.orders (AccessDeniedException: ");
  }

  @Test
  void throttlingBeyondTheSdksRetriesIsWaitedOut() {
    iceberg("db", "a");
    glue.throttleNext(4, "GetDatabases");
    // Iceberg's own client (waits of a second or more between the SDK's attempts), as deployed
    assertThat(listing.tablesOtherThan(TableIdentifier.of("db", "b"))).hasSize(1);
    assertThat(glue.calls("GetDatabases")).as("the SDK's 3 attempts, then ours").isEqualTo(5);
    assertThat(waits).hasSize(1);
  }

  /** A listing through {@link LocalGlue#newClient()}: the SDK's retries wait milliseconds. */
  private GlueCatalogListing fastListing() {
    return new GlueCatalogListing(
        glue.newClient(),
        null,
        new ThrottlingRetry(6, Duration.ofMillis(1), Duration.ofMillis(5), waits::add));
  }

  @Test
  void throttlingOnEveryAttemptFailsTheListingNamingWhat() {
    iceberg("db", "a");
    glue.throttleNext(1_000, "GetTables");
    GlueCatalogListing fast = fastListing();
    assertThatThrownBy(() -> fast.tablesOtherThan(TableIdentifier.of("db", "b")))
        .isInstanceOf(ListingFailedException.class)
        .hasMessageStartingWith(
            "the tables of Glue database db cannot be listed (CatalogThrottledException: Glue"
                + " GetTables of database db was throttled on each of 6 attempts)");
    assertThat(glue.calls("GetTables")).as("6 of ours, 3 of the SDK's each").isEqualTo(18);
    fast.close();
  }
}
