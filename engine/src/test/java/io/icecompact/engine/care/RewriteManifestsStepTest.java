package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.care.RewriteManifestsStep;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import java.util.Map;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

/**
 * {@link RewriteManifestsStep}: past the threshold, fewer manifests, each a partition range; same
 * files and rows.
 */
class RewriteManifestsStepTest extends CareTestBase {
  /** 6 day partitions of 5 files: 30 appends, one manifest each. */
  static final FragmentedTable.Shape STREAM = new FragmentedTable.Shape(6, 5, 100, 2, 2, 10, true);

  @Test
  void rewritesManyManifestsIntoFewClusteredByPartition() {
    Table table = create(STREAM);
    Map<String, Long> rows = LiveRows.multiset(table);
    // a target of ten one-entry manifests' bytes: ranges of two day partitions (5 files each)
    long averageManifest =
        (long)
            table.currentSnapshot().dataManifests(table.io()).stream()
                .mapToLong(ManifestFile::length)
                .average()
                .orElseThrow();
    table
        .updateProperties()
        .set(TableProperties.MANIFEST_TARGET_SIZE_BYTES, Long.toString(10 * averageManifest))
        .commit();

    RewriteManifestsStep.Report report = new RewriteManifestsStep(10).run(load());

    table = load();
    assertThat(report.rewritten()).isTrue();
    assertThat(report.dataManifestsBefore())
        .isEqualTo(
            table.snapshot(table.currentSnapshot().parentId()).dataManifests(table.io()).size())
        .isGreaterThanOrEqualTo(30);
    assertThat(report.dataManifestsAfter())
        .isEqualTo(table.currentSnapshot().dataManifests(table.io()).size())
        .isEqualTo(3);
    assertThat(report.dataFilesAfter()).isEqualTo(report.dataFilesBefore()).isEqualTo(30);
    assertThat(report.deleteManifestsAfter()).isEqualTo(report.deleteManifestsBefore());
    assertThat(table.currentSnapshot().operation()).isEqualTo(DataOperations.REPLACE);
    // clustered: no two manifests share a partition
    for (ManifestFile a : table.currentSnapshot().dataManifests(table.io())) {
      for (ManifestFile b : table.currentSnapshot().dataManifests(table.io())) {
        if (a != b) {
          assertThat(overlaps(a, b)).as("%s and %s overlap", a.path(), b.path()).isFalse();
        }
      }
    }
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    System.err.printf(
        "manifests: %d -> %d data manifests%n",
        report.dataManifestsBefore(), report.dataManifestsAfter());
  }

  @Test
  void leavesManifestsUnderTheThresholdAlone() {
    create(STREAM);
    long snapshot = load().currentSnapshot().snapshotId();
    RewriteManifestsStep.Report report = new RewriteManifestsStep().run(load());
    assertThat(report.rewritten()).isFalse();
    assertThat(report.reason()).contains("not more than the threshold 100");
    assertThat(load().currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  /**
   * Whether two manifests' day ranges overlap (the partition summaries of the single day field).
   */
  private static boolean overlaps(ManifestFile a, ManifestFile b) {
    int aLow =
        org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.IntegerType.get(), a.partitions().get(0).lowerBound());
    int aHigh =
        org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.IntegerType.get(), a.partitions().get(0).upperBound());
    int bLow =
        org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.IntegerType.get(), b.partitions().get(0).lowerBound());
    int bHigh =
        org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.IntegerType.get(), b.partitions().get(0).upperBound());
    return aLow <= bHigh && bLow <= aHigh;
  }
}
