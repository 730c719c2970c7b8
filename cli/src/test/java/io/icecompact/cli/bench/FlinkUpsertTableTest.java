package io.icecompact.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.fixtures.FlinkUpsertTable.Changes;
import io.icecompact.fixtures.FlinkUpsertTable.Mode;
import io.icecompact.fixtures.FlinkUpsertTable.Shape;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fixture against Iceberg's own reader and against what Flink's sink does by construction, from the
 * snapshots' files rather than from figures the fixture printed: one snapshot per checkpoint; per
 * checkpoint one data file per writer and bucket, at most one equality delete file per writer and bucket
 * (equality fields = the key; upsert mode: the key alone, changelog mode: the whole row), position deletes
 * (v2: file-scoped files; v3: deletion vectors, one Puffin file per writer) only of rows written in the same
 * checkpoint; after them, at most one row per key per checkpoint; a key always written by the same writer;
 * every upsert or delete deletes its key once (changelog: every update and delete).
 */
class FlinkUpsertTableTest {
  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of(Shape.small(Mode.UPSERT, 2, false)),
        Arguments.of(Shape.small(Mode.CHANGELOG, 2, false)),
        Arguments.of(Shape.small(Mode.UPSERT, 2, true)),
        Arguments.of(Shape.small(Mode.UPSERT, 3, false)));
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void liveRowsAreTheModelsAndTheFilesAreLaidOutAsFlinkWritesThem(Shape shape, @TempDir Path dir) {
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(dir))) {
      FlinkUpsertTable cdc = FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse("cdc.t"), shape);
      Table table = cdc.table();
      table.refresh();

      Schema schema = table.schema();
      Set<Integer> key = schema.identifierFieldIds();
      assertThat(key).hasSize(shape.compositeKey() ? 3 : 1);
      assertThat(schema.findField("id").fieldId()).isIn(key);
      assertThat(table.spec().fields()).singleElement()
          .satisfies(field -> assertThat(field.transform().toString()).isEqualTo("bucket[" + shape.buckets() + "]"));
      assertThat(((HasTableOperations) table).operations().current().formatVersion()).isEqualTo(shape.formatVersion());
      assertThat(table.properties().get(TableProperties.UPSERT_ENABLED))
          .isEqualTo(shape.mode() == Mode.UPSERT ? "true" : null);

      assertLiveRowsAreTheModels(cdc);

      // one more checkpoint on the committed table, as a test adding upserts concurrently does
      cdc.checkpoint();
      assertThat(table.snapshots()).hasSize(shape.checkpoints() + 1);
      assertLiveRowsAreTheModels(cdc);
      assertLayout(cdc, shape.checkpoints() + 1);
    }
  }

  private static void assertLiveRowsAreTheModels(FlinkUpsertTable cdc) {
    Table table = cdc.table();
    table.refresh();
    int width = table.schema().columns().size();
    Map<String, Long> read = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(row -> read.merge(LiveRows.text(row, width), 1L, Long::sum));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Long> expected = new TreeMap<>();
    cdc.expectedLiveRows().forEach(row -> expected.merge(LiveRows.text(row, width), 1L, Long::sum));
    assertThat(expected).hasSize((int) cdc.liveRowCount());
    // some keys were deleted (or never written) and most are live
    assertThat(cdc.liveRowCount()).isBetween(cdc.shape().keySpace() / 2, cdc.shape().keySpace() - 1);
    assertThat(read).isEqualTo(expected);
  }

  private static void assertLayout(FlinkUpsertTable cdc, int checkpoints) {
    Table table = cdc.table();
    Shape shape = cdc.shape();
    Schema schema = table.schema();
    Schema keySchema = TypeUtil.select(schema, schema.identifierFieldIds());
    List<Integer> keyIds = schema.identifierFieldIds().stream().sorted().toList();
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertThat(snapshots).hasSize(checkpoints);
    List<Changes> changes = cdc.changes();
    assertThat(changes).hasSize(checkpoints);
    BaseDeleteLoader deletes = new BaseDeleteLoader(file -> table.io().newInputFile(file.location()));
    Map<String, Integer> writerOfKey = new HashMap<>();

    for (int i = 0; i < checkpoints; i++) {
      Snapshot snapshot = snapshots.get(i);
      Changes sent = changes.get(i);
      assertThat(snapshot.summary()).containsEntry(FlinkUpsertTable.MAX_COMMITTED_CHECKPOINT_ID, Integer.toString(i + 1));
      assertThat(snapshot.sequenceNumber()).isEqualTo(i + 1);
      assertThat(sent.inserts() + sent.updates() + sent.deletes())
          .isEqualTo(shape.writers() * shape.changesPerWriterPerCheckpoint());

      SnapshotChanges added = SnapshotChanges.builderFor(table).snapshot(snapshot).build();
      List<DataFile> data = new ArrayList<>();
      added.addedDataFiles().forEach(data::add);
      List<DeleteFile> deleteFiles = new ArrayList<>();
      added.addedDeleteFiles().forEach(deleteFiles::add);
      // one snapshot per checkpoint: its data and deletes share its sequence number
      Stream.concat(data.stream(), deleteFiles.stream())
          .forEach(file -> assertThat(file.dataSequenceNumber()).isEqualTo(snapshot.sequenceNumber()));

      // one data file per writer and bucket (200 changes a writer over 4 buckets: none is empty)
      Set<String> writerBuckets = new HashSet<>();
      data.forEach(file -> writerBuckets.add(writer(file.location()) + "/" + file.partition().get(0, Integer.class)));
      assertThat(writerBuckets).hasSize(data.size());
      assertThat(data).hasSize(shape.writers() * shape.buckets());
      assertThat(data.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(sent.inserts() + sent.updates());

      List<DeleteFile> equality =
          deleteFiles.stream().filter(file -> file.content() == FileContent.EQUALITY_DELETES).toList();
      List<DeleteFile> positions =
          deleteFiles.stream().filter(file -> file.content() == FileContent.POSITION_DELETES).toList();
      Set<String> eqWriterBuckets = new HashSet<>();
      for (DeleteFile file : equality) {
        assertThat(file.equalityFieldIds()).containsExactlyElementsOf(keyIds);
        // upsert: the key only; changelog: the whole old row
        assertThat(file.valueCounts().keySet())
            .containsExactlyInAnyOrderElementsOf(
                shape.mode() == Mode.UPSERT ? keyIds : TypeUtil.getProjectedIds(schema));
        assertThat(eqWriterBuckets.add(writer(file.location()) + "/" + file.partition().get(0, Integer.class)))
            .isTrue();
      }
      long equalityDeletes = equality.stream().mapToLong(DeleteFile::recordCount).sum();
      long positionDeletes = positions.stream().mapToLong(DeleteFile::recordCount).sum();
      // each upsert and delete deletes its key once (changelog: each update and delete)
      long expectedDeletes =
          shape.mode() == Mode.UPSERT
              ? sent.inserts() + sent.updates() + sent.deletes()
              : sent.updates() + sent.deletes();
      assertThat(equalityDeletes + positionDeletes).isEqualTo(expectedDeletes);
      assertThat(positionDeletes).as("keys changed twice in a checkpoint").isPositive();
      // the snapshot's summary says the same (Iceberg leaves zero counts out)
      Map<String, String> summary = snapshot.summary();
      assertThat(summary.getOrDefault("added-data-files", "0")).isEqualTo(Integer.toString(data.size()));
      assertThat(summary.getOrDefault("added-records", "0")).isEqualTo(Long.toString(sent.inserts() + sent.updates()));
      assertThat(summary.getOrDefault("added-equality-delete-files", "0")).isEqualTo(Integer.toString(equality.size()));
      assertThat(summary.getOrDefault("added-equality-deletes", "0")).isEqualTo(Long.toString(equalityDeletes));
      assertThat(summary.getOrDefault(shape.formatVersion() >= 3 ? "added-dvs" : "added-position-delete-files", "0"))
          .isEqualTo(Integer.toString(positions.size()));
      assertThat(summary.getOrDefault("added-position-deletes", "0")).isEqualTo(Long.toString(positionDeletes));
      if (i == 0 && shape.mode() == Mode.CHANGELOG) {
        // nothing older to delete: the first checkpoint deletes by position only (an upsert cannot know that)
        assertThat(equalityDeletes).isZero();
      } else {
        assertThat(equalityDeletes).isPositive();
      }

      // position deletes only of this checkpoint's rows: file-scoped on v2, deletion vectors on v3
      Set<String> addedData = new HashSet<>();
      data.forEach(file -> addedData.add(file.location()));
      Set<String> referenced = new HashSet<>();
      Set<String> dvFiles = new HashSet<>();
      for (DeleteFile file : positions) {
        assertThat(ContentFileUtil.referencedDataFileLocation(file)).isIn(addedData);
        assertThat(referenced.add(ContentFileUtil.referencedDataFileLocation(file))).isTrue();
        assertThat(file.format()).isEqualTo(shape.formatVersion() >= 3 ? FileFormat.PUFFIN : FileFormat.PARQUET);
        assertThat(ContentFileUtil.isDV(file)).isEqualTo(shape.formatVersion() >= 3);
        dvFiles.add(file.location());
      }
      if (shape.formatVersion() >= 3) {
        // one Puffin file per writer and checkpoint
        assertThat(dvFiles).hasSizeLessThanOrEqualTo(shape.writers());
      }

      // after its position deletes, a checkpoint holds at most one row per key; a key stays with its writer
      Set<String> keys = new HashSet<>();
      for (DataFile file : data) {
        PositionDeleteIndex deleted = deletes.loadPositionDeletes(
            positions.stream().filter(d -> file.location().equals(ContentFileUtil.referencedDataFileLocation(d)))
                .toList(),
            file.location());
        long position = 0;
        for (Record row : read(table, file, schema)) {
          String rowKey = LiveRows.text(row, keySchema.columns().size());
          assertThat(writerOfKey.computeIfAbsent(rowKey, k -> writer(file.location())))
              .isEqualTo(writer(file.location()));
          if (!deleted.isDeleted(position)) {
            assertThat(keys.add(rowKey)).as("%s live once in checkpoint %d", rowKey, i + 1).isTrue();
          }
          position++;
        }
      }
    }
  }

  /** Flink's file names start with the writer's subtask index: {@code 00001-0-<uuid>-00003.parquet}. */
  private static int writer(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    return Integer.parseInt(name.substring(0, name.indexOf('-')));
  }

  private static List<Record> read(Table table, DataFile file, Schema schema) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      records.forEach(rows::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
