package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FlinkUpsertTable.Mode;
import io.icecompact.fixtures.FlinkUpsertTable.Shape;
import io.icecompact.fixtures.LocalWarehouse;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading each equality delete file once per partition finds the rows Iceberg's generic reader
 * finds.
 */
class LiveRowChecksumTest {
  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of(Shape.small(Mode.UPSERT, 2, false)),
        Arguments.of(Shape.small(Mode.CHANGELOG, 2, false)),
        Arguments.of(Shape.small(Mode.UPSERT, 2, true)),
        Arguments.of(Shape.small(Mode.CHANGELOG, 3, true)));
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void equalityDeletesReadOncePerPartitionGiveTheGenericReadersRows(
      Shape shape, @TempDir Path dir) {
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(dir))) {
      FlinkUpsertTable cdc =
          FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse("cdc.t"), shape);

      assertThat(EqualityDeletesOnce.forEachLiveRow(cdc.table(), cdc.table().schema(), row -> {}))
          .isTrue();
      LiveRowChecksum once = LiveRowChecksum.of(cdc.table(), true);
      assertThat(once).isEqualTo(LiveRowChecksum.of(cdc.table(), false));
      assertThat(once.rows()).isEqualTo(cdc.liveRowCount());
      assertThat(LiveRowChecksum.of(cdc.table())).isEqualTo(once);
    }
  }
}
