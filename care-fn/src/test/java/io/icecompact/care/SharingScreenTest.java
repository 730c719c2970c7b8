package io.icecompact.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.care.SharingScreen.Action;
import io.icecompact.care.SharingScreen.Decision;
import io.icecompact.care.catalog.ListedTable;
import io.icecompact.core.scope.DeploymentScope;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/** The screen's decision for each kind of listed table, with and without location bounds. */
class SharingScreenTest {
  static final TableIdentifier OTHER = TableIdentifier.of("other", "t");
  static final DeploymentScope BOUNDED = DeploymentScope.parse(null, "s3://ours/wh/");
  static final DeploymentScope UNBOUNDED = DeploymentScope.unrestricted();

  /** Our table's folders: its location and its metadata folder. */
  static Map<String, String> ours() {
    Map<String, String> folders = new LinkedHashMap<>();
    folders.put("location", "s3://ours/wh/db/orders");
    folders.put("current metadata file's folder", "s3://ours/wh/db/orders/metadata");
    return folders;
  }

  private static Decision bounded(ListedTable table) {
    return new SharingScreen(ours(), BOUNDED).decide(table);
  }

  private static Decision unbounded(ListedTable table) {
    return new SharingScreen(ours(), UNBOUNDED).decide(table);
  }

  private static ListedTable iceberg(String location, String metadata) {
    return ListedTable.iceberg(OTHER, location, metadata, false);
  }

  @Test
  void anIcebergTableOutsideTheDeploymentsLocationsIsTriedNotRequired() {
    ListedTable elsewhere =
        iceberg("s3://finance/wh/ledger", "s3://finance/wh/ledger/metadata/00001-a.metadata.json");
    assertThat(bounded(elsewhere))
        .isEqualTo(new Decision(Action.TRY_LOAD, "outside this deployment's locations"));
    assertThat(unbounded(elsewhere))
        .isEqualTo(new Decision(Action.LOAD, "this deployment sets no location bounds"));
  }

  @Test
  void anIcebergTableInsideTheDeploymentsLocationsMustBeRead() {
    assertThat(bounded(iceberg("s3://ours/wh/db/items", "s3://ours/wh/db/items/metadata/1.json")))
        .isEqualTo(new Decision(Action.LOAD, "it lies inside this deployment's locations"));
    // either location inside is enough: metadata kept in our prefix, data elsewhere
    assertThat(bounded(iceberg("s3://finance/wh/x", "s3://ours/wh/meta/x/1.json")).action())
        .isEqualTo(Action.LOAD);
    assertThat(bounded(iceberg("s3://ours/wh/x", "s3://finance/wh/x/metadata/1.json")).action())
        .isEqualTo(Action.LOAD);
  }

  @Test
  void anIcebergTableWhoseListingOverlapsOurFoldersMustBeReadWhereverItIs() {
    // registered from our metadata, but through another scheme and bucket: compared by path
    Decision copy =
        bounded(
            iceberg(
                "s3a://elsewhere/wh/db/orders", "s3a://elsewhere/wh/db/orders/metadata/9.json"));
    assertThat(copy.action()).isEqualTo(Action.LOAD);
    assertThat(copy.why())
        .isEqualTo(
            "its listed location s3a://elsewhere/wh/db/orders is this table's location"
                + " s3://ours/wh/db/orders");
    assertThat(bounded(iceberg("s3://x/wh/db/orders/data/nested", "s3://x/m/1.json")).why())
        .startsWith("its listed location s3://x/wh/db/orders/data/nested is inside this table's");
  }

  @Test
  void anIcebergEntryWithoutListedLocationsMustBeRead() {
    assertThat(bounded(iceberg("s3://finance/wh/x", null)))
        .isEqualTo(new Decision(Action.LOAD, "its locations are not listed"));
    assertThat(bounded(ListedTable.named(OTHER)))
        .isEqualTo(new Decision(Action.LOAD, "listed by name only"));
  }

  @Test
  void aTableOfAnotherFormatRefusesInsideOurFoldersAndIsNamedElsewhere() {
    Decision inside =
        unbounded(
            ListedTable.otherFormat(OTHER, "s3://ours/wh/db/orders/data", "EXTERNAL_TABLE", false));
    assertThat(inside.action()).isEqualTo(Action.REFUSE);
    assertThat(inside.why())
        .isEqualTo(
            "not an Iceberg table (EXTERNAL_TABLE), and its listed location"
                + " s3://ours/wh/db/orders/data is inside this table's location"
                + " s3://ours/wh/db/orders, so which of its files are live cannot be told from any"
                + " metadata");
    assertThat(
            bounded(ListedTable.otherFormat(OTHER, "s3://ours/wh/hive/x", "EXTERNAL_TABLE", false)))
        .isEqualTo(
            new Decision(
                Action.NOT_CHECKED,
                "not an Iceberg table (EXTERNAL_TABLE) at s3://ours/wh/hive/x, apart from this"
                    + " table's folders: its partitions' own locations are not checked"));
    assertThat(bounded(ListedTable.otherFormat(OTHER, null, "GOVERNED", true)))
        .isEqualTo(
            new Decision(
                Action.NOT_CHECKED,
                "not an Iceberg table (GOVERNED) and no location listed: not checked"));
  }

  @Test
  void resourceLinksAreCheckedAsTheirTargetOrNamedAndViewsSkipped() {
    assertThat(unbounded(ListedTable.resourceLink(OTHER, "this catalog/db.orders", true)))
        .isEqualTo(
            new Decision(
                Action.SKIP, "resource link to this catalog/db.orders: checked as its target"));
    assertThat(unbounded(ListedTable.resourceLink(OTHER, "999/sales.orders", false)))
        .isEqualTo(
            new Decision(
                Action.NOT_CHECKED,
                "resource link to 999/sales.orders: not checked: another catalog's table this role"
                    + " cannot read"));
    assertThat(bounded(ListedTable.view(OTHER))).isEqualTo(new Decision(Action.SKIP, "a view"));
  }
}
