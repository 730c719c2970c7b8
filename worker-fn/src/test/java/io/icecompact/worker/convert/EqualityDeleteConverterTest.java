package io.icecompact.worker.convert;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FlinkUpsertTable.Mode;
import io.icecompact.fixtures.FlinkUpsertTable.Shape;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Converting a Flink-shaped upsert table's equality deletes into position deletes (v2) or deletion
 * vectors (v3), every data file converted, then replacing the equality delete files with them in
 * one RewriteFiles commit validated from the pinned snapshot: the live rows are the same, no
 * equality delete is left, the data files are untouched.
 */
class EqualityDeleteConverterTest {
  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of(Shape.small(Mode.UPSERT, 2, false)),
        Arguments.of(Shape.small(Mode.UPSERT, 2, true)),
        Arguments.of(Shape.small(Mode.UPSERT, 3, false)),
        Arguments.of(Shape.small(Mode.UPSERT, 3, true)),
        Arguments.of(Shape.small(Mode.CHANGELOG, 2, false)));
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void replacingEqualityDeletesByConvertedPositionsKeepsTheLiveRows(
      Shape shape, @TempDir Path dir) {
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(dir))) {
      Table table =
          FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse("cdc.t"), shape).table();
      table.refresh();
      long pinned = table.currentSnapshot().snapshotId();
      Map<String, Long> liveBefore = LiveRows.multiset(table);
      List<FileScanTask> tasks = tasks(table);
      Set<String> dataBefore = dataFiles(tasks);

      GroupDeleteLoader loader = new GroupDeleteLoader(table, tasks, 0);
      EqualityDeleteConverter converter =
          new EqualityDeleteConverter(table, loader, 0, 0, "job-convert-test");
      Map<String, DeleteFile> equalityDeletes = new LinkedHashMap<>();
      Set<String> converted = new HashSet<>();
      Map<String, Set<String>> dataFilesOfEqualityDelete = new LinkedHashMap<>();
      List<ConvertedDeletes> results = new ArrayList<>();
      long bytesRead = 0;
      long fileBytes = 0;
      List<FoundDeletes> found = new ArrayList<>();
      for (FileScanTask task : tasks) {
        if (task.deletes().stream().noneMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
          continue;
        }
        found.add(converter.find(task));
        fileBytes += task.file().fileSizeInBytes();
      }
      if (converter.writesDeletionVectors()) {
        results.addAll(converter.writeDeletionVectors(found));
      } else {
        found.forEach(file -> results.add(converter.writePositionDeletes(file)));
      }
      for (ConvertedDeletes result : results) {
        converted.add(result.dataFile());
        for (DeleteFile delete : result.equalityDeletes()) {
          equalityDeletes.putIfAbsent(delete.location(), delete);
          dataFilesOfEqualityDelete
              .computeIfAbsent(delete.location(), unused -> new HashSet<>())
              .add(result.dataFile());
        }
        assertThat(result.bytesRead()).isPositive();
        bytesRead += result.bytesRead();
      }
      if (shape.formatVersion() >= 3) {
        // as Iceberg's writers lay out a task's DVs: the group's in one Puffin file
        assertThat(
                results.stream()
                    .filter(result -> result.positionDeletes() != null)
                    .map(result -> result.positionDeletes().location())
                    .distinct())
            .hasSize(1);
      }
      assertThat(equalityDeletes).isNotEmpty();
      // Parquet's footer read takes the whole of a file of a few kilobytes, as these are; on files
      // of
      // real size only the key columns' chunks are read (bench convert: 72 of 293 MB)
      assertThat(bytesRead)
          .as("bytes read of %d", fileBytes)
          .isPositive()
          .isLessThanOrEqualTo(fileBytes);
      long positions = results.stream().mapToLong(ConvertedDeletes::positions).sum();
      assertThat(positions).as("rows deleted by equality").isPositive();

      RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(pinned);
      // an equality delete file goes only when every data file it applies to was converted
      dataFilesOfEqualityDelete.forEach(
          (delete, dataFiles) -> {
            if (converted.containsAll(dataFiles)) {
              rewrite.deleteFile(equalityDeletes.get(delete));
            }
          });
      Map<String, DeleteFile> replaced = new LinkedHashMap<>();
      for (ConvertedDeletes result : results) {
        if (result.positionDeletes() != null) {
          assertNewDeletes(result, shape.formatVersion());
          rewrite.addFile(result.positionDeletes());
        }
        assertThat(result.replacedDeletes())
            .as("replaced: deletes of %s alone", result.dataFile())
            .allMatch(
                delete ->
                    result.dataFile().equals(ContentFileUtil.referencedDataFileLocation(delete)));
        result.replacedDeletes().forEach(delete -> replaced.putIfAbsent(id(delete), delete));
      }
      // Flink's deletes of rows rewritten within a checkpoint (v2 files, v3 DVs): merged into the
      // new ones, replaced
      assertThat(replaced).isNotEmpty();
      replaced.values().forEach(rewrite::deleteFile);
      rewrite.commit();

      table.refresh();
      assertThat(LiveRows.multiset(table)).isEqualTo(liveBefore);
      List<FileScanTask> after = tasks(table);
      assertThat(dataFiles(after)).isEqualTo(dataBefore);
      for (FileScanTask task : after) {
        assertThat(task.deletes())
            .noneMatch(delete -> delete.content() == FileContent.EQUALITY_DELETES);
        assertThat(
                task.deletes().stream()
                    .filter(
                        delete ->
                            task.file()
                                .location()
                                .equals(ContentFileUtil.referencedDataFileLocation(delete)))
                    .count())
            .as("position deletes (DVs on v3) of %s alone", task.file().location())
            .isLessThanOrEqualTo(1);
      }
      assertSomeDeletedKeyIsLiveAgain(table, results);
    }
  }

  private static void assertNewDeletes(ConvertedDeletes result, int formatVersion) {
    DeleteFile written = result.positionDeletes();
    assertThat(written.content()).isEqualTo(FileContent.POSITION_DELETES);
    assertThat(ContentFileUtil.referencedDataFileLocation(written)).isEqualTo(result.dataFile());
    assertThat(written.location()).contains("job-convert-test");
    if (formatVersion >= 3) {
      assertThat(ContentFileUtil.isDV(written)).isTrue();
      assertThat(written.format()).isEqualTo(FileFormat.PUFFIN);
      assertThat(written.recordCount()).isGreaterThanOrEqualTo(result.positions());
    } else {
      assertThat(written.format()).isEqualTo(FileFormat.PARQUET);
      // the positions of the file's own position delete files, merged in, besides the new ones
      assertThat(written.recordCount()).isGreaterThanOrEqualTo(result.positions());
    }
  }

  /**
   * Upserts delete a key and write it again: some key a converted delete removed an old row of is
   * live in a newer row (the equality delete's sequence number did not reach it).
   */
  private static void assertSomeDeletedKeyIsLiveAgain(Table table, List<ConvertedDeletes> results) {
    Schema keySchema = TypeUtil.select(table.schema(), table.schema().identifierFieldIds());
    int width = keySchema.columns().size();
    Set<String> deletedKeys = new HashSet<>();
    BaseDeleteLoader loader =
        new BaseDeleteLoader(file -> table.io().newInputFile(file.location()));
    for (ConvertedDeletes result : results) {
      if (result.positionDeletes() == null) {
        continue;
      }
      PositionDeleteIndex deleted =
          loader.loadPositionDeletes(List.of(result.positionDeletes()), result.dataFile());
      List<Record> rows = LiveRows.storedOrder(table, result.dataFile());
      for (int position = 0; position < rows.size(); position++) {
        if (deleted.isDeleted(position)) {
          deletedKeys.add(LiveRows.text(rows.get(position), width));
        }
      }
    }
    Set<String> liveKeyTexts = new HashSet<>();
    try (CloseableIterable<Record> keys =
        IcebergGenerics.read(table).select(names(keySchema)).build()) {
      keys.forEach(key -> liveKeyTexts.add(LiveRows.text(key, width)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(deletedKeys)
        .as("keys deleted then written again")
        .containsAnyElementsOf(liveKeyTexts);
  }

  private static String[] names(Schema schema) {
    return schema.columns().stream().map(field -> field.name()).toArray(String[]::new);
  }

  private static String id(DeleteFile delete) {
    return delete.location() + "@" + delete.contentOffset();
  }

  private static List<FileScanTask> tasks(Table table) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  private static Set<String> dataFiles(List<FileScanTask> tasks) {
    Set<String> locations = new HashSet<>();
    tasks.forEach(task -> locations.add(task.file().location()));
    return locations;
  }
}
