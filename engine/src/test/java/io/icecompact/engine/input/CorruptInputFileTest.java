package io.icecompact.engine.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data file that is not Parquet any more fails its own group with CorruptInputFileException; the
 * job commits the other groups and reports PARTIAL, and the corrupt group's files stay live.
 */
class CorruptInputFileTest {
  static final String TABLE = "db.orders";

  @TempDir Path warehouse;

  @Test
  void corruptFileFailsOnlyItsGroup() throws IOException {
    String location = TestTables.create(warehouse, TABLE, TestTables.SMALL);
    Map<String, Long> rowsBefore = TestTables.withTable(warehouse, TABLE, LiveRows::multiset);
    Map<String, String> filesBefore =
        TestTables.withTable(warehouse, TABLE, TestTables::liveDataFiles);
    assertThat(new java.util.TreeSet<>(filesBefore.values()))
        .containsExactly(
            "ordered_at_day=2026-06-01", "ordered_at_day=2026-06-02", "ordered_at_day=2026-06-03");

    // a data file that has position deletes, so its delete file is read before the data file
    String corrupt =
        TestTables.withTable(
            warehouse, TABLE, table -> fileWithPositionDeletes(table, "ordered_at_day=2026-06-02"));
    String corruptPartition = filesBefore.get(corrupt);
    Path corruptPath = TestTables.localPath(corrupt);
    byte[] original = Files.readAllBytes(corruptPath);
    byte[] garbage = new byte[original.length];
    new Random(1).nextBytes(garbage);
    Files.write(corruptPath, garbage);
    Map<String, Long> partitionDirBefore = filesIn(location, corruptPartition);

    JobResult result =
        new EmbeddedJobRunner(2, ProgressListener.NONE)
            .run(
                new JobSpec(
                    null, TABLE, TestTables.catalog(warehouse), Map.of(), null, null, null));

    assertThat(result.status()).isEqualTo(JobStatus.PARTIAL);
    assertThat(result.groups()).hasSize(3);
    List<GroupOutcome> failed =
        result.groups().stream().filter(g -> g.status() == GroupOutcome.Status.FAILED).toList();
    assertThat(failed).hasSize(1);
    GroupOutcome corruptGroup = failed.get(0);
    assertThat(corruptGroup.partition()).isEqualTo(corruptPartition);
    assertThat(corruptGroup.reason())
        .startsWith(
            CorruptInputFileException.class.getSimpleName()
                + ": Cannot rewrite data file "
                + corrupt
                + ": ");
    assertThat(corruptGroup.inputFiles()).isEqualTo(5);
    assertThat(corruptGroup.outputFiles()).isZero();
    assertThat(result.groups())
        .filteredOn(g -> g != corruptGroup)
        .allSatisfy(g -> assertThat(g.status()).isEqualTo(GroupOutcome.Status.REWRITTEN))
        .extracting(GroupOutcome::partition)
        .doesNotContain(corruptPartition);
    assertThat(result.failedGroups()).isEqualTo(1);
    assertThat(result.rewrittenGroups()).isEqualTo(2);
    assertThat(result.rewrittenDataFilesCount()).isEqualTo(10);
    assertThat(result.failedDataFilesCount()).isEqualTo(5);
    assertThat(result.snapshotIds()).hasSize(1);

    // the corrupt group's files are still the live files of its partition, other partitions were
    // compacted
    Map<String, String> filesAfter =
        TestTables.withTable(warehouse, TABLE, TestTables::liveDataFiles);
    Map<String, String> corruptPartitionBefore = onlyPartition(filesBefore, corruptPartition);
    assertThat(onlyPartition(filesAfter, corruptPartition)).isEqualTo(corruptPartitionBefore);
    assertThat(corruptPartitionBefore).containsKey(corrupt).hasSize(5);
    Map<String, Long> perPartition =
        filesAfter.values().stream().collect(Collectors.groupingBy(p -> p, Collectors.counting()));
    assertThat(perPartition)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "ordered_at_day=2026-06-01", 1L,
                "ordered_at_day=2026-06-02", 5L,
                "ordered_at_day=2026-06-03", 1L));
    // the failed attempt left no output behind in the corrupt file's partition
    assertThat(filesIn(location, corruptPartition)).isEqualTo(partitionDirBefore);

    // with the file's bytes back, the table holds exactly the rows it held before
    Files.write(corruptPath, original);
    Map<String, Long> rowsAfter = TestTables.withTable(warehouse, TABLE, LiveRows::multiset);
    assertThat(rowsAfter).isEqualTo(rowsBefore);
  }

  private static String fileWithPositionDeletes(Table table, String partition) {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        boolean inPartition =
            table.spec().partitionToPath(task.file().partition()).equals(partition);
        boolean positionDeletes =
            task.deletes().stream().anyMatch(d -> d.content() == FileContent.POSITION_DELETES);
        if (inPartition && positionDeletes) {
          return task.file().location();
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    throw new AssertionError("no data file with position deletes in " + partition);
  }

  private static Map<String, String> onlyPartition(Map<String, String> files, String partition) {
    return files.entrySet().stream()
        .filter(e -> e.getValue().equals(partition))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private static Map<String, Long> filesIn(String location, String partition) {
    return TestTables.filesUnder(location).entrySet().stream()
        .filter(e -> e.getKey().startsWith("data/" + partition + "/"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }
}
