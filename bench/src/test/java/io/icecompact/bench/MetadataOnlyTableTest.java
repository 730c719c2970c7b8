package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LocalWarehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataOnlyTableTest {
  @Test
  void spreadsFilesOfAFewMegabytesEvenlyOverDaysWithoutWritingAny(@TempDir Path dir)
      throws Exception {
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(dir))) {
      Table table =
          MetadataOnlyTable.create(access.catalog(), TableIdentifier.parse("bench.scale"), 2_500);

      assertThat(((HasTableOperations) table).operations().current().formatVersion()).isEqualTo(2);
      assertThat(table.snapshots()).hasSize(1);
      assertThat(table.currentSnapshot().summary()).containsEntry("total-data-files", "2500");
      Map<Object, Integer> filesPerDay = new HashMap<>();
      Set<String> paths = new HashSet<>();
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().includeColumnStats().planFiles()) {
        for (FileScanTask task : tasks) {
          DataFile file = task.file();
          paths.add(file.location());
          filesPerDay.merge(file.partition().get(0, Integer.class), 1, Integer::sum);
          assertThat(file.fileSizeInBytes())
              .isBetween(
                  (long) MetadataOnlyTable.MIN_FILE_BYTES, (long) MetadataOnlyTable.MAX_FILE_BYTES);
          assertThat(file.recordCount())
              .isEqualTo(file.fileSizeInBytes() / MetadataOnlyTable.BYTES_PER_ROW);
          assertThat(file.lowerBounds()).containsKeys(1, 5);
          assertThat(file.location()).startsWith(table.location() + "/data/ordered_at_day=");
          assertThat(Files.exists(Path.of(file.location()))).isFalse();
        }
      }
      assertThat(paths).hasSize(2_500);
      assertThat(filesPerDay)
          .hasSize(25)
          .allSatisfy((day, files) -> assertThat(files).isEqualTo(100));
    }
  }

  @Test
  void aThousandDaysFromAHundredThousandFilesOneDayPerHundredBelow() {
    assertThat(MetadataOnlyTable.days(1_000_000)).isEqualTo(1_000);
    assertThat(MetadataOnlyTable.days(100_000)).isEqualTo(1_000);
    assertThat(MetadataOnlyTable.days(2_000)).isEqualTo(20);
    assertThat(MetadataOnlyTable.days(50)).isEqualTo(1);
  }
}
