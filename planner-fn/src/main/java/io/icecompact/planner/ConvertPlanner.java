package io.icecompact.planner;

import io.icecompact.core.filter.JobFilter;
import io.icecompact.core.job.EqualityDeleteScope;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PinnedSnapshot;
import io.icecompact.core.job.PlanRef;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.ConvertOptions;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.BinPacking;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner stage of a {@code convert-equality-deletes} job: pins the current snapshot, finds the
 * data files an equality delete applies to (Iceberg's scan matches them, by sequence number and
 * partition scope, as readers do), groups them by partition (a partition's files share its equality
 * deletes, which each worker loads once) in bins of {@code max-file-group-input-files} files and
 * {@code max-file-group-size-bytes}, and stores the plan as a rewrite's: the index, one document
 * per group (one whole-file task per data file), and the {@link EqualityDeleteScope}: how many data
 * files of the whole table each equality delete applies to, so the committer retires a delete only
 * when the job converted every one of them.
 */
public final class ConvertPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(ConvertPlanner.class);

  private final TableAccess access;
  private final DeploymentScope scope;

  public ConvertPlanner(TableAccess access, DeploymentScope scope) {
    this.access = access;
    this.scope = scope;
  }

  /**
   * Plans the job and stores it in its work location.
   *
   * @throws io.icecompact.core.error.TransientException when the environment failed, as {@link
   *     RewritePlanner#plan}
   */
  public PlanSummary plan(JobSpec requested) {
    JobSpec spec = requested.withJobIdIfAbsent();
    try {
      return planAndStore(spec);
    } catch (RuntimeException e) {
      throw RewritePlanner.retryableIfTransient(e, spec);
    }
  }

  private PlanSummary planAndStore(JobSpec spec) {
    long started = System.currentTimeMillis();
    ConvertOptions options = ConvertOptions.parse(spec.options());
    scope.checkTable(spec.table());
    Table table = access.loadTable(spec.table());
    Expression filter = JobFilter.resolve(spec.filter(), spec.where(), table.schema());
    WorkLocation work =
        WorkLocation.of(spec.workLocation(), table.location(), spec.table(), spec.jobId());
    scope.checkTableLocations(table);
    scope.checkLocation("work location", work.jobDirectory());
    PlanRef nothing = new PlanRef(spec.jobId(), spec.table(), work.jobDirectory(), null);
    Snapshot current = table.currentSnapshot();
    if (TableUtil.formatVersion(table) < 2) {
      return nothingToDo(
          spec, nothing, "a v1 table has no delete files: nothing to convert", started);
    }
    if (current == null) {
      return nothingToDo(
          spec, nothing, "the table has no snapshot yet: nothing to convert", started);
    }

    List<FileScanTask> unfiltered = new ArrayList<>();
    Map<String, Integer> dataFilesPerDelete =
        dataFilesPerEqualityDelete(
            table, current, filter.op() == Expression.Operation.TRUE ? unfiltered : null);
    if (dataFilesPerDelete.isEmpty()) {
      return nothingToDo(
          spec,
          nothing,
          String.format(
              "no equality delete applies to a data file at snapshot %d: nothing to convert",
              current.snapshotId()),
          started);
    }
    // without a filter, the first scan found them: the planning of a big table is not repeated
    List<FileScanTask> candidates =
        filter.op() == Expression.Operation.TRUE
            ? unfiltered
            : tasksWithEqualityDeletes(table, current, filter);
    if (candidates.isEmpty()) {
      return nothingToDo(
          spec,
          nothing,
          String.format(
              "%d equality delete files apply at snapshot %d, but to no data file the filter"
                  + " selects: nothing to convert",
              dataFilesPerDelete.size(), current.snapshotId()),
          started);
    }
    List<List<FileScanTask>> groups = groups(table, candidates, options);
    int total = groups.size();
    int kept = Math.min(total, options.maxGroupsPerJob());
    groups = groups.subList(0, kept);

    JobStore store = new JobStore(access.fileIO());
    store.writeDocument(
        work.equalityDeleteScope(),
        new EqualityDeleteScope(current.snapshotId(), dataFilesPerDelete));
    List<PlannedGroup> planned = new ArrayList<>(groups.size());
    try (GroupPlanWriter writer = new GroupPlanWriter(store, work, spec.jobId(), table.specs())) {
      for (int index = 0; index < groups.size(); index++) {
        List<FileScanTask> tasks = groups.get(index);
        int groupIndex = index;
        writer.write(index, tasks, sha256 -> plannedGroup(groupIndex, table, tasks, sha256));
      }
      planned.addAll(writer.entries());
    }
    PinnedSnapshot pinned = PinnedSnapshot.of(table, current, table.spec().specId());
    JobPlan plan =
        new JobPlan(
            spec.jobId(),
            spec.table(),
            pinned,
            options.asMap(),
            JobFilter.toJson(filter, table.schema()),
            System.currentTimeMillis(),
            planned,
            total - kept,
            null,
            null,
            JobAction.CONVERT_EQUALITY_DELETES);
    String sha256 = store.writePlan(work, plan);
    LOG.info(
        "[{} {} planner] convert: {} groups of {} data files, {} equality delete files applying,"
            + " pinned at snapshot {}",
        spec.table(),
        spec.jobId(),
        planned.size(),
        planned.stream().mapToInt(PlannedGroup::inputFiles).sum(),
        dataFilesPerDelete.size(),
        current.snapshotId());
    return RewritePlanner.summary(plan, work, sha256, System.currentTimeMillis() - started);
  }

  /**
   * For each equality delete file, how many data files of the whole snapshot (whatever the job's
   * filter) it applies to; streams the scan, holding only the counts, and adds to {@code
   * withEqualityDeletes}, unless null, the tasks of the data files an equality delete applies to.
   */
  private static Map<String, Integer> dataFilesPerEqualityDelete(
      Table table, Snapshot snapshot, List<FileScanTask> withEqualityDeletes) {
    Map<String, Integer> counts = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        List<String> equality =
            task.deletes().stream()
                .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
                .map(DeleteFile::location)
                .distinct()
                .toList();
        equality.forEach(location -> counts.merge(location, 1, Integer::sum));
        if (withEqualityDeletes != null && !equality.isEmpty()) {
          withEqualityDeletes.add(task);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return counts;
  }

  /** The filter's data files with an equality delete, one whole-file task each. */
  private static List<FileScanTask> tasksWithEqualityDeletes(
      Table table, Snapshot snapshot, Expression filter) {
    List<FileScanTask> found = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).filter(filter).planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
          found.add(task);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  /**
   * Groups by partition (spec and partition value), each bin-packed by data bytes within the group
   * bounds; partitions in path order, so a plan reads the same twice.
   */
  private static List<List<FileScanTask>> groups(
      Table table, List<FileScanTask> tasks, ConvertOptions options) {
    Map<String, List<FileScanTask>> byPartition = new TreeMap<>();
    for (FileScanTask task : tasks) {
      PartitionSpec spec = table.specs().get(task.file().specId());
      String key = spec.specId() + "/" + spec.partitionToPath(task.file().partition());
      byPartition.computeIfAbsent(key, unused -> new ArrayList<>()).add(task);
    }
    List<List<FileScanTask>> groups = new ArrayList<>();
    for (List<FileScanTask> partition : byPartition.values()) {
      partition.sort(java.util.Comparator.comparing(task -> task.file().location()));
      List<List<FileScanTask>> bins =
          new BinPacking.ListPacker<FileScanTask>(options.maxFileGroupSizeBytes(), 1, false)
              .pack(partition, task -> task.file().fileSizeInBytes());
      for (List<FileScanTask> bin : bins) {
        // in equal parts, not full ones and a remainder: each group loads its partition's deletes
        int parts =
            (bin.size() + options.maxFileGroupInputFiles() - 1) / options.maxFileGroupInputFiles();
        for (int part = 0; part < parts; part++) {
          groups.add(
              List.copyOf(bin.subList(bin.size() * part / parts, bin.size() * (part + 1) / parts)));
        }
      }
    }
    return groups;
  }

  private static PlannedGroup plannedGroup(
      int index, Table table, List<FileScanTask> tasks, String sha256) {
    TreeSet<Integer> keyIds = new TreeSet<>();
    tasks.forEach(
        task ->
            task.deletes().stream()
                .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
                .forEach(delete -> keyIds.addAll(delete.equalityFieldIds())));
    List<String> keyNames = keyIds.stream().map(id -> table.schema().findColumnName(id)).toList();
    return new PlannedGroup(
        index,
        RewritePlanner.describePartition(table, tasks),
        tasks.size(),
        tasks.stream().mapToLong(task -> task.file().fileSizeInBytes()).sum(),
        tasks.stream().mapToLong(task -> task.file().recordCount()).sum(),
        (int)
            tasks.stream()
                .flatMap(task -> task.deletes().stream())
                .map(DeleteFile::location)
                .distinct()
                .count(),
        0,
        "CONVERT",
        "reads the key columns " + keyNames + " and row positions only; writes no data file",
        sha256);
  }

  private static PlanSummary nothingToDo(JobSpec spec, PlanRef ref, String reason, long started) {
    LOG.info("[{} {} planner] nothing to do: {}", spec.table(), spec.jobId(), reason);
    return PlanSummary.nothingToDo(
        ref, "Nothing to convert: " + reason, System.currentTimeMillis() - started);
  }
}
