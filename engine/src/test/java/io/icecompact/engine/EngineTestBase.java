package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.WarehouseTestBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Shared setup of the engine tests: a warehouse (JDBC-on-SQLite catalog, local files) in a
 * temporary directory, a fragmented table, and helpers that read the table and the job's work
 * location back. Each test has its own warehouse, so tests run concurrently (see
 * junit-platform.properties).
 */
@Execution(ExecutionMode.CONCURRENT)
abstract class EngineTestBase extends WarehouseTestBase {
  /**
   * 4 day partitions of 5 files of 200 rows, 2 files with position deletes, 10 equality-deleted
   * ids.
   */
  static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(4, 5, 200, 2, 2, 10, true);

  JobSpec job(Map<String, String> options) {
    return new JobSpec(null, TABLE, catalog, options, null, null, null);
  }

  JobSpec job() {
    return job(Map.of());
  }

  static Map<String, String> options(String... keyValues) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      options.put(keyValues[i], keyValues[i + 1]);
    }
    return options;
  }

  JobResult run(JobSpec spec) {
    return run(spec, GroupInterceptor.NONE);
  }

  JobResult run(JobSpec spec, GroupInterceptor interceptor) {
    return new EmbeddedJobRunner(2, ProgressListener.NONE, interceptor).run(spec);
  }

  // ---- reading the table back ----

  static List<Snapshot> snapshots(Table table) {
    table.refresh();
    List<Snapshot> all = new ArrayList<>();
    table.snapshots().forEach(all::add);
    return all;
  }

  /** Snapshots committed after {@code before} snapshots, oldest first. */
  static List<Snapshot> newSnapshots(Table table, int before) {
    List<Snapshot> all = snapshots(table);
    return all.subList(before, all.size());
  }

  static List<FileScanTask> liveTasks(Table table) {
    table.refresh();
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  static List<DataFile> liveDataFiles(Table table) {
    return liveTasks(table).stream().map(FileScanTask::file).map(f -> (DataFile) f).toList();
  }

  static List<String> liveDataPaths(Table table) {
    return liveDataFiles(table).stream().map(DataFile::location).toList();
  }

  /**
   * Delete files that apply to at least one live data file, one per location (+ offset for DVs).
   */
  static Map<String, DeleteFile> liveDeletes(Table table) {
    Map<String, DeleteFile> deletes = new LinkedHashMap<>();
    for (FileScanTask task : liveTasks(table)) {
      for (DeleteFile delete : task.deletes()) {
        deletes.putIfAbsent(delete.location() + "@" + delete.contentOffset(), delete);
      }
    }
    return deletes;
  }

  static long countDeletes(Table table, FileContent content) {
    return liveDeletes(table).values().stream().filter(d -> d.content() == content).count();
  }

  static long summaryLong(Snapshot snapshot, String property) {
    String value = snapshot.summary().get(property);
    return value == null ? 0 : Long.parseLong(value);
  }

  // ---- reading the job back ----

  JobPlan plan(PlanSummary summary) {
    return new JobStore(access.fileIO())
        .readPlan(summary.jobId(), summary.planLocation(), summary.planSha256());
  }

  List<FileScanTask> groupTasks(PlanSummary summary, int groupIndex) {
    return new JobStore(access.fileIO())
        .readGroupTasks(new WorkLocation(summary.workLocation()), plan(summary), groupIndex);
  }

  List<DataFile> groupInputs(PlanSummary summary, int groupIndex) {
    return groupTasks(summary, groupIndex).stream()
        .map(FileScanTask::file)
        .map(f -> (DataFile) f)
        .toList();
  }

  GroupResult groupResult(PlanSummary summary, int groupIndex) {
    return new JobStore(access.fileIO())
        .readGroupResult(new WorkLocation(summary.workLocation()), groupIndex)
        .orElseThrow(() -> new AssertionError("no stored result for group " + groupIndex));
  }

  /** Output file locations a group's stored result names. */
  List<String> outputLocations(PlanSummary summary, int groupIndex) {
    return groupResult(summary, groupIndex).outputFiles().stream()
        .map(node -> node.get("file-path").asText())
        .toList();
  }

  static GroupOutcome outcome(JobResult result, int groupIndex) {
    return result.groups().stream()
        .filter(g -> g.groupIndex() == groupIndex)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no outcome for group " + groupIndex));
  }

  /** Every file under the table's data folder whose name carries {@code jobId}. */
  static List<Path> filesNamedFor(Table table, String jobId) {
    Path data = Path.of(table.location().replaceFirst("^file:", "")).resolve("data");
    if (!Files.isDirectory(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().contains(jobId))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The status, with the reason and the group outcomes in the failure message. */
  static void assertStatus(JobResult result, JobStatus status) {
    assertThat(result.status())
        .as(
            "job status; reason: %s; groups: %s; problems: %s",
            result.reason(), result.groups(), result.verification().problems())
        .isEqualTo(status);
  }

  static void assertAllOutcomes(JobResult result, GroupOutcome.Status status) {
    assertThat(result.groups())
        .isNotEmpty()
        .allSatisfy(g -> assertThat(g.status()).isEqualTo(status));
  }
}
