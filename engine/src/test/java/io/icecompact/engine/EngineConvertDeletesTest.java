package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FlinkUpsertTable.Mode;
import io.icecompact.fixtures.FlinkUpsertTable.Shape;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code convert-equality-deletes} through the whole pipeline (planner, a worker per group, the
 * committer): Flink-shaped upsert and changelog tables keep exactly their live rows, their data
 * files stay as they were, and an equality delete is gone only when every data file it applied to
 * was converted; concurrent writers' commits survive, and a concurrent compaction of the same files
 * refuses the conversion.
 */
class EngineConvertDeletesTest extends EngineTestBase {
  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of("upsert v2", Shape.small(Mode.UPSERT, 2, false)),
        Arguments.of("upsert v2, key (tenant, id, event_ts)", Shape.small(Mode.UPSERT, 2, true)),
        Arguments.of("changelog v2", Shape.small(Mode.CHANGELOG, 2, false)),
        Arguments.of("upsert v3, deletion vectors", Shape.small(Mode.UPSERT, 3, false)),
        Arguments.of("upsert v3, composite key", Shape.small(Mode.UPSERT, 3, true)));
  }

  private JobSpec convert() {
    return job().withAction(JobAction.CONVERT_EQUALITY_DELETES);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void convertsEveryEqualityDeleteKeepingTheLiveRowsAndTheDataFiles(String name, Shape shape) {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape);
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    Set<String> dataBefore = Set.copyOf(liveDataPaths(table));
    long equalityBefore = countDeletes(table, FileContent.EQUALITY_DELETES);
    assertThat(equalityBefore).isPositive();
    int snapshotsBefore = snapshots(table).size();

    JobResult result = run(convert());

    assertConvertedKeeping(result, cdc, before, dataBefore);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertThat(added.get(0).operation()).isEqualTo("replace");
    // the result's counts are the snapshot's
    assertThat(result.conversion().convertedEqualityDeleteFilesCount())
        .isEqualTo((int) equalityBefore);
    assertThat(result.conversion().addedPositionDeleteFilesCount())
        .isEqualTo((int) summaryLong(added.get(0), "added-delete-files"))
        .isPositive();
    assertThat(result.conversion().keptEqualityDeleteFilesCount()).isZero();
    assertThat(result.conversion().deletedPositionsCount()).isPositive();
    assertThat(result.verification().verified())
        .as("%s", result.verification().problems())
        .isTrue();
    // only key columns were read: far less than the data files' bytes
    long dataBytes = liveDataFiles(table).stream().mapToLong(f -> f.fileSizeInBytes()).sum();
    assertThat(result.conversion().bytesReadCount()).isPositive().isLessThan(dataBytes);
    Set<String> puffinFiles = new HashSet<>();
    for (FileScanTask task : liveTasks(table)) {
      if (shape.formatVersion() >= 3) {
        assertThat(task.deletes().stream().filter(ContentFileUtil::isDV).count())
            .as("DVs of %s", task.file().location())
            .isLessThanOrEqualTo(1);
        task.deletes().stream()
            .filter(ContentFileUtil::isDV)
            .filter(dv -> dv.location().contains(result.jobId()))
            .forEach(dv -> puffinFiles.add(dv.location()));
      }
    }
    if (shape.formatVersion() >= 3) {
      // as Iceberg's writers lay out a task's DVs: one Puffin file a group, not one a data file
      assertThat(puffinFiles).hasSize(result.rewrittenGroups());
      assertThat(result.conversion().addedPositionDeleteFilesCount())
          .isGreaterThan(result.rewrittenGroups());
    }
    // a second run finds nothing to convert
    JobResult again = run(convert());
    assertStatus(again, JobStatus.NOTHING_TO_DO);
    assertThat(again.reason()).contains("no equality delete applies");
  }

  /**
   * The job committed converting every group; the table holds the rows it held and the writer
   * expects, the same data files, and no equality delete.
   */
  private static void assertConvertedKeeping(
      JobResult result, FlinkUpsertTable cdc, Map<String, Long> before, Set<String> dataBefore) {
    assertStatus(result, JobStatus.COMMITTED);
    assertAllOutcomes(result, GroupOutcome.Status.CONVERTED);
    Table table = cdc.table();
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    assertThat(LiveRows.multiset(table))
        .isEqualTo(LiveRows.multiset(cdc.expectedLiveRows(), table));
    assertThat(Set.copyOf(liveDataPaths(table))).isEqualTo(dataBefore);
    assertThat(countDeletes(table, FileContent.EQUALITY_DELETES)).isZero();
  }

  static Stream<Arguments> formats() {
    return Stream.of(
        Arguments.of("orc", Shape.small(Mode.UPSERT, 2, false)),
        Arguments.of("orc", Shape.small(Mode.CHANGELOG, 2, true)),
        Arguments.of("orc", Shape.small(Mode.UPSERT, 3, false)),
        Arguments.of("avro", Shape.small(Mode.UPSERT, 2, false)),
        Arguments.of("avro", Shape.small(Mode.UPSERT, 3, true)));
  }

  /**
   * An ORC or Avro table as Flink writes it (data, equality and position deletes all in the table's
   * format): the keys are read with Iceberg's reader for the format, and the new position deletes
   * are written in the table's delete format (v2) or as deletion vectors (v3).
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("formats")
  void convertsTheEqualityDeletesOfOrcAndAvroTablesInTheirFormat(String format, Shape shape) {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            shape,
            Map.of(TableProperties.DEFAULT_FILE_FORMAT, format));
    Table table = cdc.table();
    FileFormat tableFormat = FileFormat.fromString(format);
    assertThat(liveDataFiles(table)).allMatch(file -> file.format() == tableFormat);
    assertThat(liveTasks(table).stream().flatMap(task -> task.deletes().stream()))
        .filteredOn(delete -> delete.content() == FileContent.EQUALITY_DELETES)
        .isNotEmpty()
        .allMatch(delete -> delete.format() == tableFormat);
    Map<String, Long> before = LiveRows.multiset(table);
    Set<String> dataBefore = Set.copyOf(liveDataPaths(table));

    JobResult result = run(convert());

    assertConvertedKeeping(result, cdc, before, dataBefore);
    FileFormat written = shape.formatVersion() >= 3 ? FileFormat.PUFFIN : tableFormat;
    List<DeleteFile> ours =
        liveTasks(table).stream()
            .flatMap(task -> task.deletes().stream())
            .filter(delete -> delete.location().contains(result.jobId()))
            .toList();
    assertThat(ours).isNotEmpty().allMatch(delete -> delete.format() == written);
    assertThat(result.conversion().deletedPositionsCount()).isPositive();
    assertThat(result.verification().verified())
        .as("%s", result.verification().problems())
        .isTrue();
  }

  /**
   * A partition with more files than a group takes is split into equal parts (each part loads the
   * partition's deletes, so no part is a small remainder), each at most the option's files.
   */
  @Test
  void aPartitionIsSplitIntoEqualGroups() {
    FlinkUpsertTable cdc = smallUpsertTable();
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    PlanSummary[] planned = new PlanSummary[1];

    JobResult result =
        runKeepingPlan(
            job(options("max-file-group-input-files", "3"))
                .withAction(JobAction.CONVERT_EQUALITY_DELETES),
            planned);

    assertStatus(result, JobStatus.COMMITTED);
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    Map<String, List<Integer>> sizes = new java.util.TreeMap<>();
    for (int index : planned[0].groupIndexes()) {
      List<FileScanTask> tasks = groupTasks(planned[0], index);
      sizes
          .computeIfAbsent(tasks.get(0).file().partition().toString(), unused -> new ArrayList<>())
          .add(tasks.size());
    }
    assertThat(sizes.values()).anyMatch(partition -> partition.size() > 1);
    sizes.forEach(
        (partition, groups) -> {
          assertThat(groups).as(partition).allMatch(size -> size <= 3);
          assertThat(groups.stream().mapToInt(Integer::intValue).max().orElseThrow())
              .as("the largest and smallest group of %s (%s)", partition, groups)
              .isLessThanOrEqualTo(
                  groups.stream().mapToInt(Integer::intValue).min().orElseThrow() + 1);
        });
  }

  /**
   * A job that converts only some of a partition's data files (groups of 3 files, one group per
   * job): an equality delete that also applies to a data file the job did not convert stays, one
   * that applied only to converted files goes, and no row changes. On v3 the group's Puffin file
   * stays whole, though the DVs of its files whose deletes all stay were not committed.
   */
  @ParameterizedTest(name = "v{0}")
  @ValueSource(ints = {2, 3})
  void aDeleteThatStillAppliesToAnUnconvertedFileStays(int formatVersion) {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(
            access.catalog(),
            TableIdentifier.parse(TABLE),
            Shape.small(Mode.UPSERT, formatVersion, false));
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    Map<String, Set<String>> dataFilesOfDelete = dataFilesOfEqualityDelete(table);
    PlanSummary[] planned = new PlanSummary[1];

    JobResult result =
        runKeepingPlan(
            job(options("max-file-group-input-files", "3", "max-groups-per-job", "1"))
                .withAction(JobAction.CONVERT_EQUALITY_DELETES),
            planned);

    assertThat(result.skippedGroups()).isPositive();
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    Set<String> converted = new HashSet<>();
    groupTasks(planned[0], 0).forEach(task -> converted.add(task.file().location()));
    assertThat(converted).isNotEmpty().hasSizeLessThanOrEqualTo(3);
    Set<String> left = equalityDeletes(table);
    Set<String> removed = new HashSet<>(dataFilesOfDelete.keySet());
    removed.removeAll(left);
    // removed: every data file it applied to was converted; kept: some was not
    removed.forEach(delete -> assertThat(converted).containsAll(dataFilesOfDelete.get(delete)));
    dataFilesOfDelete.forEach(
        (delete, files) -> {
          if (converted.containsAll(files)) {
            assertThat(removed).as("retired %s", delete).contains(delete);
          }
        });
    long keptTouched =
        dataFilesOfDelete.entrySet().stream()
            .filter(e -> e.getValue().stream().anyMatch(converted::contains))
            .filter(e -> !converted.containsAll(e.getValue()))
            .count();
    assertThat(keptTouched).as("deletes of converted files that apply elsewhere too").isPositive();
    for (FileScanTask task : liveTasks(table)) {
      task.deletes()
          .forEach(
              delete ->
                  assertThat(table.io().newInputFile(delete.location()).exists())
                      .as("delete file %s of %s", delete.location(), task.file().location())
                      .isTrue());
    }
    if (result.status() == JobStatus.COMMITTED) {
      assertThat(result.conversion().keptEqualityDeleteFilesCount()).isEqualTo((int) keptTouched);
      assertThat(result.conversion().convertedEqualityDeleteFilesCount()).isEqualTo(removed.size());
    } else {
      assertStatus(result, JobStatus.NOTHING_TO_DO);
      assertThat(removed).isEmpty();
      assertThat(result.reason()).contains("still applies to a data file this job did not convert");
    }
  }

  private static Map<String, Set<String>> dataFilesOfEqualityDelete(Table table) {
    Map<String, Set<String>> files = new java.util.TreeMap<>();
    for (FileScanTask task : liveTasks(table)) {
      task.deletes().stream()
          .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
          .forEach(
              d ->
                  files
                      .computeIfAbsent(d.location(), unused -> new HashSet<>())
                      .add(task.file().location()));
    }
    return files;
  }

  /**
   * Upserts committed after the plan and before the commit: their equality deletes stay and apply
   * as before, the conversion commits, no row changes.
   */
  @Test
  void upsertsCommittedDuringTheJobSurvive() {
    FlinkUpsertTable cdc = smallUpsertTable();
    Table table = cdc.table();
    Set<String> equalityBefore = equalityDeletes(table);

    JobResult result =
        run(
            convert(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                cdc.checkpoint();
                cdc.checkpoint();
              }
            });

    assertStatus(result, JobStatus.COMMITTED);
    table.refresh();
    assertThat(LiveRows.multiset(table))
        .isEqualTo(LiveRows.multiset(cdc.expectedLiveRows(), table));
    Set<String> left = equalityDeletes(table);
    assertThat(left).isNotEmpty().doesNotContainAnyElementsOf(equalityBefore);
  }

  /**
   * A delete file of the job gone or cut short before the commit (a lifecycle rule, a partial
   * upload): the committer checks each file's stored size against the group's result, so the job
   * fails naming the file, and the table keeps its snapshot, its equality deletes and its rows.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"missing", "cut short"})
  void aDeleteFileMissingOrCutShortFailsTheJobNamingItAndLeavesTheTable(String damage) {
    FlinkUpsertTable cdc = smallUpsertTable();
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    long snapshotBefore = table.currentSnapshot().snapshotId();
    Set<String> equalityBefore = equalityDeletes(table);
    Path[] damaged = new Path[1];

    assertThatThrownBy(
            () ->
                run(
                    convert(),
                    new GroupInterceptor() {
                      @Override
                      public void beforeCommit(PlanSummary summary) {
                        List<Path> written = filesNamedFor(load(), summary.jobId());
                        assertThat(written).isNotEmpty();
                        damaged[0] = written.get(written.size() / 2);
                        damage(damaged[0], damage);
                      }
                    }))
        .isInstanceOf(JobInvariantViolationException.class)
        .hasMessageContaining(damaged[0].getFileName().toString())
        .hasMessageContaining(
            damage.equals("missing") ? " does not exist" : " bytes, its result records ");

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    assertThat(equalityDeletes(table)).isEqualTo(equalityBefore);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  private static void damage(Path file, String how) {
    try {
      if (how.equals("missing")) {
        Files.delete(file);
      } else {
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A compaction committed while the conversion runs removes the data files it converted: the
   * conversion is refused (its equality deletes would have to apply to the compaction's new files
   * too), its delete files are deleted, and the rows are the compaction's.
   */
  @Test
  void aConcurrentCompactionOfTheSameFilesRefusesTheConversion() {
    FlinkUpsertTable cdc = smallUpsertTable();
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    String[] convertJob = new String[1];

    JobResult result =
        run(
            convert(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                convertJob[0] = summary.jobId();
                assertStatus(run(job()), JobStatus.COMMITTED);
              }
            });

    assertThat(result.status()).isEqualTo(JobStatus.CONTENDED);
    assertThat(result.conflictedGroups()).isEqualTo(result.groups().size());
    assertThat(result.groups())
        .allSatisfy(g -> assertThat(g.reason()).contains("was removed by snapshot"));
    assertThat(result.snapshotIds()).isEmpty();
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    assertThat(filesNamedFor(table, convertJob[0])).as("the conversion's delete files").isEmpty();
  }

  /**
   * v3: another writer gives a converted data file a deletion vector while the job runs: a second
   * DV for the file would make it unreadable, so that file's group is refused and its partition's
   * equality deletes stay; the other groups are converted, and the rows are the writer's.
   */
  @Test
  void aConcurrentDeletionVectorForAConvertedFileRefusesItsGroup() {
    FlinkUpsertTable cdc =
        FlinkUpsertTable.create(
            access.catalog(), TableIdentifier.parse(TABLE), Shape.small(Mode.UPSERT, 3, false));
    Table table = cdc.table();
    String[] target = new String[1];
    Map<String, Long>[] expected = new Map[1];

    JobResult result =
        run(
            convert(),
            new GroupInterceptor() {
              @Override
              public void beforeCommit(PlanSummary summary) {
                table.refresh();
                FileScanTask task =
                    liveTasks(table).stream()
                        .filter(
                            t ->
                                t.deletes().stream()
                                    .anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES))
                        .findFirst()
                        .orElseThrow();
                target[0] = task.file().location();
                ConcurrentDeletionVector.deleteFirstLiveRow(table, task);
                table.refresh();
                expected[0] = LiveRows.multiset(table);
              }
            });

    assertStatus(result, JobStatus.PARTIAL);
    List<GroupOutcome> refused =
        result.groups().stream().filter(g -> g.status() == GroupOutcome.Status.CONFLICTED).toList();
    assertThat(refused).hasSize(1);
    assertThat(refused.get(0).reason())
        .contains("a deletion vector for data file " + target[0] + " was added");
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(expected[0]);
    for (FileScanTask task : liveTasks(table)) {
      assertThat(task.deletes().stream().filter(ContentFileUtil::isDV).count())
          .as("DVs of %s", task.file().location())
          .isLessThanOrEqualTo(1);
    }
    assertThat(
            liveTasks(table).stream()
                .filter(t -> t.file().location().equals(target[0]))
                .flatMap(t -> t.deletes().stream())
                .anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES))
        .as("the refused file's equality deletes stay")
        .isTrue();
  }

  /**
   * A group whose worker fails: the equality deletes of its partition still apply to its data files
   * and stay; the other groups' are converted.
   */
  @Test
  void aFailedGroupKeepsTheDeletesItsFilesNeed() {
    FlinkUpsertTable cdc = smallUpsertTable();
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    long equalityBefore = countDeletes(table, FileContent.EQUALITY_DELETES);

    JobResult result =
        run(
            convert(),
            new GroupInterceptor() {
              @Override
              public void beforeGroup(GroupRequest request) {
                if (request.groupIndex() == 0) {
                  throw new IllegalStateException("worker of group 0 broke");
                }
              }
            });

    assertStatus(result, JobStatus.PARTIAL);
    assertThat(outcome(result, 0).status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(outcome(result, 0).reason()).contains("group 0 broke");
    table.refresh();
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
    long left = countDeletes(table, FileContent.EQUALITY_DELETES);
    assertThat(left).isPositive().isLessThan(equalityBefore);
    assertThat(result.conversion().convertedEqualityDeleteFilesCount())
        .isEqualTo((int) (equalityBefore - left));
  }

  /**
   * The committer runs again after an earlier run committed and stopped before storing its result
   * (its cleanup already deleted what it did not commit): the job's snapshot is read back, not made
   * again, and the result is the same.
   */
  @Test
  void aCommitterRunAgainAfterItsCommitReportsThatCommit() {
    FlinkUpsertTable cdc = smallUpsertTable();
    Table table = cdc.table();
    Map<String, Long> before = LiveRows.multiset(table);
    PlanSummary[] planned = new PlanSummary[1];
    JobSpec spec = convert().withJobIdIfAbsent();
    JobResult first =
        run(
            spec,
            new GroupInterceptor() {
              @Override
              public void beforeGroup(GroupRequest request) {
                if (request.groupIndex() == 1) {
                  throw new IllegalStateException("group 1 broke");
                }
              }

              @Override
              public void beforeCommit(PlanSummary summary) {
                planned[0] = summary;
              }
            });
    assertStatus(first, JobStatus.PARTIAL);
    int snapshots = snapshots(table).size();
    access.fileIO().deleteFile(planned[0].planRef().work().jobResult());

    JobResult again =
        new io.icecompact.committer.JobCommitter(access)
            .commit(io.icecompact.core.job.CommitRequest.of(spec, planned[0]));

    assertStatus(again, JobStatus.PARTIAL);
    assertThat(again.snapshotIds()).isEqualTo(first.snapshotIds());
    assertThat(again.conversion()).isEqualTo(first.conversion());
    assertThat(again.groups().stream().map(GroupOutcome::status).toList())
        .isEqualTo(first.groups().stream().map(GroupOutcome::status).toList());
    assertThat(again.verification().verified()).as("%s", again.verification()).isTrue();
    table.refresh();
    assertThat(snapshots(table)).hasSize(snapshots);
    assertThat(LiveRows.multiset(table)).isEqualTo(before);
  }

  private FlinkUpsertTable smallUpsertTable() {
    return FlinkUpsertTable.create(
        access.catalog(), TableIdentifier.parse(TABLE), Shape.small(Mode.UPSERT, 2, false));
  }

  /** Runs {@code spec}, keeping in {@code planned} the plan the committer was given. */
  private JobResult runKeepingPlan(JobSpec spec, PlanSummary[] planned) {
    return run(
        spec,
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary summary) {
            planned[0] = summary;
          }
        });
  }

  @Test
  void rewriteOnlyOptionsAreRefusedNamingTheOption() {
    smallUpsertTable();
    assertThatThrownBy(
            () ->
                run(
                    job(options("target-file-size-bytes", "1000"))
                        .withAction(JobAction.CONVERT_EQUALITY_DELETES)))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageContaining(
            "'target-file-size-bytes' does not apply to convert-equality-deletes");
  }

  private static Set<String> equalityDeletes(Table table) {
    return liveDeletes(table).values().stream()
        .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
        .map(DeleteFile::location)
        .collect(Collectors.toCollection(HashSet::new));
  }
}
