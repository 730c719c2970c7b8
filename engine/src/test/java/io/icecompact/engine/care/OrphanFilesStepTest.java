package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.care.CareRefusedException;
import io.icecompact.care.OrphanFilesStep;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/**
 * {@link OrphanFilesStep} on a compacted table whose every file is made to look four days old, so
 * that only reachability protects the table's files: old orphans in data/ and metadata/ go, a young
 * orphan and a concurrent writer's not-yet-committed file stay, every file of every snapshot stays,
 * a finished job's work location goes and an unfinished one's (and the output it may still commit)
 * stays.
 */
class OrphanFilesStepTest extends CareTestBase {
  static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(4, 5, 200, 2, 2, 10, true);
  static final Duration OLD = Duration.ofDays(4);

  @Test
  void deletesOldUnreachableFilesAndKeepsEverythingThatMayBeLive() {
    create(SMALL);
    JobResult compaction = compact(Map.of(), null);
    assertThat(compaction.status()).isEqualTo(JobStatus.COMMITTED);
    Table table = load();
    Map<String, Long> rows = LiveRows.multiset(table);
    Path folder = folder(table);
    Path day = folder.resolve("data/ordered_at_day=2026-06-01");
    Path work = folder.resolve("_icecompact");
    assertThat(work.resolve(compaction.jobId()).resolve("result.json")).exists();

    // a job stopped before its committer (no result), and one whose commit state is unknown, with
    // an
    // unreachable output its committer may still commit
    Path unfinished = write(work.resolve("job-unfinished/plan.json"), "{}");
    Path unknownOutput = write(day.resolve("unknown-job-output.parquet"), "not committed yet");
    write(
        work.resolve("job-unknown/result.json"),
        "{\"job_id\":\"job-unknown\",\"status\":\"UNKNOWN\"}");
    write(
        work.resolve("job-unknown/results/group-00000.json"),
        "{\"output_files\":[{\"file-path\":\"" + unknownOutput + "\"}]}");
    Path oldDataOrphan = write(day.resolve("00009-killed-worker.parquet"), "orphan");
    Path oldMetadataOrphan =
        write(folder.resolve("metadata/unknown-state-commit-m0.avro"), "orphan");
    age(folder, OLD); // everything, live or not, looks old: only reachability keeps live files

    Path youngOrphan = write(day.resolve("00010-young.parquet"), "orphan, but young");
    List<Record> batch =
        List.of(FragmentedTable.newOrder(1_000_000, 0), FragmentedTable.newOrder(1_000_001, 0));
    DataFile inFlight = FragmentedTable.dataFile(table, batch); // written, not committed yet
    Set<String> reachable = reachableFromEverySnapshot(table);

    OrphanFilesStep.Report report = new OrphanFilesStep(access.catalog(), TABLE).run(load());

    assertThat(report.problems()).isEmpty();
    assertThat(report.skippedFolders()).isEmpty();
    assertThat(report.orphansDeleted().sample())
        .containsExactlyInAnyOrder(oldDataOrphan.toString(), oldMetadataOrphan.toString());
    assertThat(report.orphansDeleted().count()).isEqualTo(2);
    assertThat(report.orphansDeleted().bytes()).isEqualTo(12);
    assertThat(oldDataOrphan).doesNotExist();
    assertThat(oldMetadataOrphan).doesNotExist();
    assertThat(youngOrphan).exists();
    assertThat(Path.of(inFlight.location().replaceFirst("^file:", ""))).exists();
    assertThat(report.youngOrphansKept()).isEqualTo(2);
    assertThat(reachable).allSatisfy(file -> assertThat(exists(file)).as(file).isTrue());

    assertThat(report.workLocationsRemoved()).isEqualTo(1);
    assertThat(report.workLocationsKept()).isEqualTo(2);
    assertThat(work.resolve(compaction.jobId()))
        .satisfiesAnyOf(
            dir -> assertThat(dir).doesNotExist(), dir -> assertThat(filesUnder(dir)).isEmpty());
    assertThat(report.workFilesDeleted().count()).isPositive();
    assertThat(unfinished).exists();
    assertThat(unknownOutput).exists();
    assertThat(report.unfinishedJobOutputsKept()).isEqualTo(1);

    assertThat(LiveRows.multiset(load())).isEqualTo(rows);
    // the concurrent writer commits after the sweep: its file is there, its rows are readable
    load().newAppend().appendFile(inFlight).commit();
    assertThat(LiveRows.count(LiveRows.multiset(load()))).isEqualTo(LiveRows.count(rows) + 2);
    System.err.printf(
        "orphans: %d listed, %d reachable, %d orphans deleted (%d bytes), %d young kept, %d job work locations"
            + " removed (%d files), %d kept%n",
        report.filesListed(),
        report.reachableFiles(),
        report.orphansDeleted().count(),
        report.orphansDeleted().bytes(),
        report.youngOrphansKept(),
        report.workLocationsRemoved(),
        report.workFilesDeleted().count(),
        report.workLocationsKept());
  }

  @Test
  void aFileCommittedWhileTheStepRunsIsKeptEvenWhenOld() {
    Table table = create(SMALL);
    // a slow writer: its file was written four days ago and is committed only now, mid-sweep
    DataFile slow =
        FragmentedTable.dataFile(table, List.of(FragmentedTable.newOrder(3_000_000, 2)));
    age(folder(table), OLD);
    Path slowFile = Path.of(slow.location());

    OrphanFilesStep.Report report =
        new OrphanFilesStep(
                access.catalog(),
                TABLE,
                OrphanFilesStep.DEFAULT_MIN_AGE,
                null,
                Clock.systemUTC(),
                current -> load().newAppend().appendFile(slow).commit())
            .run(load());

    assertThat(slowFile).exists();
    assertThat(report.orphansDeleted().count()).isZero();
    assertThat(report.problems()).isEmpty();
    assertThat(LiveRows.multiset(load()))
        .containsKey(LiveRows.text(FragmentedTable.newOrder(3_000_000, 2), 6));
  }

  /**
   * Issue 24: a sweep deleted the aged outputs of an unfinished job run with a work location it
   * cannot see, and the job's recommit then failed. An output named with a job id whose work
   * location is not under this table's work root is kept; a plain orphan beside it still goes.
   */
  @Test
  void anOutputOfAJobWhoseWorkLocationIsElsewhereIsKept() {
    Table table = create(SMALL);
    Path day = folder(table).resolve("data/ordered_at_day=2026-06-01");
    Path output =
        write(
            day.resolve("00000-0-job-0123456789ab-00001.parquet"),
            "a job's output, not committed yet");
    Path plain = write(day.resolve("00000-0-f00d-00001.parquet"), "no job's");
    age(folder(table), OLD);

    OrphanFilesStep.Report report = new OrphanFilesStep(access.catalog(), TABLE).run(load());

    assertThat(output).exists();
    assertThat(report.unseenJobOutputsKept().count()).isEqualTo(1);
    assertThat(report.unseenJobOutputsKept().sample())
        .singleElement()
        .asString()
        .contains("output of job-0123456789ab, whose work location is not under");
    assertThat(report.summary())
        .contains("1 outputs of jobs whose work location is elsewhere kept");
    assertThat(plain).doesNotExist();
    assertThat(report.problems()).isEmpty();
  }

  @Test
  void aMinimumAgeUnderOneDayIsRefused() {
    assertThatThrownBy(
            () ->
                new OrphanFilesStep(
                    access.catalog(),
                    TABLE,
                    Duration.ofHours(23),
                    null,
                    Clock.systemUTC(),
                    t -> {}))
        .isInstanceOf(CareRefusedException.class)
        .hasMessageContaining("minimum age of PT23H")
        .hasMessageContaining("not yet committed")
        .hasMessageContaining("Use at least 1 day");
  }

  @Test
  void aDataFolderOutsideTheTableIsNotListed() {
    create(SMALL);
    Path elsewhere = warehouse.resolve("shared-data");
    load().updateProperties().set("write.data.path", elsewhere.toString()).commit();
    Path foreign = write(elsewhere.resolve("another-tables-file.parquet"), "not ours");
    ageFile(foreign, OLD);
    OrphanFilesStep.Report report = new OrphanFilesStep(access.catalog(), TABLE).run(load());
    assertThat(report.skippedFolders())
        .singleElement()
        .asString()
        .contains("may hold other tables' files");
    assertThat(foreign).exists();
  }

  @Test
  void aFileNamedDifferentlyByTheMetadataIsKept() throws Exception {
    Table table = create(SMALL);
    DataFile existing =
        FragmentedTable.dataFile(table, List.of(FragmentedTable.newOrder(2_000_000, 0)));
    Path day = Path.of(existing.location()).getParent();
    Path viaFileUri =
        java.nio.file.Files.copy(Path.of(existing.location()), day.resolve("via-file-uri.parquet"));
    Path viaS3a =
        java.nio.file.Files.copy(Path.of(existing.location()), day.resolve("via-s3a.parquet"));
    // the metadata names one as file:///..., the other with another scheme and bucket: the listing
    // returns both as plain paths
    table
        .newAppend()
        .appendFile(
            org.apache.iceberg.DataFiles.builder(table.spec())
                .copy(existing)
                .withPath("file://" + viaFileUri)
                .build())
        .appendFile(
            org.apache.iceberg.DataFiles.builder(table.spec())
                .copy(existing)
                .withPath("s3a://bucket" + viaS3a)
                .build())
        .commit();
    age(folder(table), OLD);

    OrphanFilesStep.Report report = new OrphanFilesStep(access.catalog(), TABLE).run(load());

    assertThat(viaFileUri).as("the same file, file:/// against a plain path").exists();
    assertThat(viaS3a).as("maybe the same object named with another scheme: kept").exists();
    assertThat(report.locationMismatchesKept()).isEqualTo(1);
    assertThat(report.locationMismatchSample()).singleElement().asString().contains("s3a://bucket");
    assertThat(report.orphansDeleted().sample())
        .containsExactly(existing.location()); // written, never committed
  }

  /**
   * Every file of every snapshot, and every metadata file on disk that the current metadata logs.
   */
  private static Set<String> reachableFromEverySnapshot(Table table) {
    Set<String> files = new HashSet<>();
    table.refresh();
    for (Snapshot snapshot : table.snapshots()) {
      files.addAll(filesOf(table, snapshot));
    }
    org.apache.iceberg.TableMetadata metadata =
        ((org.apache.iceberg.HasTableOperations) table).operations().current();
    files.add(metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> files.add(entry.file()));
    return files;
  }
}
