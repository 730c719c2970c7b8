package io.icecompact.cli.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.TestTables;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.EqualityDeleteCosts;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.TableAssessment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The equality-delete estimate where it is easiest to get wrong: a v3 table, whose position deletes
 * are deletion vectors, and data files whose manifests lack the key column's size.
 */
class EqualityDeleteEstimateEdgesTest {
  @TempDir Path warehouse;

  private TableAssessment assess(String table) {
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      return new FleetAssessor(access).assess(table);
    }
  }

  @Test
  void aV3TableAtTargetIsConvertedAndItsDeletionVectorsAreCounted() {
    String name = "cdc.v3";
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      Table table =
          FlinkUpsertTable.create(
                  access.catalog(),
                  TableIdentifier.parse(name),
                  FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 3, false))
              .table();
      EqualityDeleteWarehouse.Expected all =
          EqualityDeleteWarehouse.Expected.of(
              table, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
      long target = Math.round(all.dataBytes() / (double) all.dataFiles() / 0.8);
      table
          .updateProperties()
          .set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(target))
          .commit();
    }
    TableAssessment v3 = assess(name);
    EqualityDeleteWarehouse.Expected e =
        TestTables.withTable(
            warehouse,
            name,
            t ->
                EqualityDeleteWarehouse.Expected.of(
                    t,
                    Long.parseLong(
                        t.properties().get(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES))));
    FlinkUpsertTable.Layout layout =
        TestTables.withTable(warehouse, name, FlinkUpsertTable.Layout::of);

    assertThat(layout.deletionVectors()).isGreaterThan(0);
    assertThat(v3.health().formatVersion()).isEqualTo(3);
    assertThat(v3.decision()).isEqualTo(Decision.CONVERT_EQUALITY_DELETES);
    EqualityDeleteCosts c = v3.equalityDeletes();
    assertThat(c.dataFiles()).isEqualTo(e.dataFiles());
    assertThat(c.equalityDeleteFiles()).isEqualTo(e.equalityDeleteFiles());
    assertThat(c.equalityKeys()).isEqualTo(e.equalityKeys());
    // the DVs of those data files: one each (a blob of a shared Puffin file), its blob's bytes
    assertThat(c.deleteFiles()).isEqualTo(e.deleteFiles());
    assertThat(c.deleteFiles() - c.equalityDeleteFiles())
        .isGreaterThan(layout.deletionVectors() / 2)
        .isLessThanOrEqualTo(layout.deletionVectors());
    assertThat(c.deleteBytes()).isEqualTo(e.deleteBytes());
    assertThat(c.keyColumnBytes()).isEqualTo(e.keyColumnBytes());
    assertThat(c.convert().bytesRead()).isEqualTo(e.keyColumnBytes() + e.deleteBytes());
  }

  /**
   * Checkpoints written with the key column's metrics off have no size for it in their manifest
   * entries: their whole size counts, and the estimate says so.
   */
  @Test
  void dataFilesWithoutTheKeyColumnsSizeCountWholeAndTheEstimateSaysSo() {
    String name = "cdc.nosizes";
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      FlinkUpsertTable.Shape shape =
          FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false);
      FlinkUpsertTable writer =
          FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(name), shape);
      writer.table().updateProperties().set("write.metadata.metrics.column.id", "none").commit();
      writer.table().refresh();
      FlinkUpsertTable more = FlinkUpsertTable.replay(writer.table(), shape);
      more.checkpoint();
      more.checkpoint();
    }
    EqualityDeleteCosts c = assess(name).equalityDeletes();

    long withSizes = 0;
    long expectedKeyBytes = 0;
    Table table = null;
    try (TableAccess access = new TableAccess(TestTables.catalog(warehouse))) {
      table = access.loadTable(name);
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().includeColumnStats().planFiles()) {
        for (FileScanTask task : tasks) {
          if (task.deletes().stream().noneMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
            continue;
          }
          Long size = task.file().columnSizes() == null ? null : task.file().columnSizes().get(1);
          if (size != null) {
            withSizes++;
            expectedKeyBytes += size;
          } else {
            expectedKeyBytes += task.file().fileSizeInBytes();
          }
        }
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
    assertThat(withSizes).isGreaterThan(0).isLessThan(c.dataFiles());
    assertThat(c.keyColumnBytesSource())
        .isEqualTo(
            "column_sizes for "
                + withSizes
                + " of "
                + c.dataFiles()
                + " files, whole files for the rest");
    assertThat(c.keyColumnBytes()).isEqualTo(expectedKeyBytes);
  }
}
