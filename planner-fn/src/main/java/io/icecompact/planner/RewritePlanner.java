package io.icecompact.planner;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.filter.JobFilter;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PinnedSnapshot;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.PlannedTasks;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.rewrite.ColumnarEligibility;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner stage: pins the table's current snapshot, plans file groups with Iceberg's
 * {@link BinPackRewriteFilePlanner}, stores the whole plan in the job's work location and returns a
 * summary whose size depends on the number of groups only.
 *
 * <p>Checks everything a user can get wrong (options, filter, table) before writing anything.
 */
public final class RewritePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(RewritePlanner.class);

  private final TableAccess access;

  public RewritePlanner(TableAccess access) {
    this.access = access;
  }

  /** Plans without storing anything: the dry run. The summary's plan location is then null. */
  public PlannedJob dryRun(JobSpec spec) {
    return prepare(spec.withJobIdIfAbsent());
  }

  /** Plans the job and stores the plan in its work location. */
  public PlanSummary plan(JobSpec requested) {
    long started = System.currentTimeMillis();
    JobSpec spec = requested.withJobIdIfAbsent();
    PlannedJob planned = prepare(spec);
    long planningMillis = System.currentTimeMillis() - started;
    if (planned.plan() == null) {
      return nothingToDo(spec, planned, planningMillis);
    }
    String sha256 = new JobStore(access.fileIO()).writePlan(planned.work(), planned.plan());
    List<PlannedGroup> groups = planned.plan().groups();
    LOG.info(
        "[{} {} planner] planned {} groups of {} files pinned at snapshot {}",
        spec.table(),
        spec.jobId(),
        groups.size(),
        groups.stream().mapToInt(PlannedGroup::inputFiles).sum(),
        planned.plan().pinned().snapshotId());
    return new PlanSummary(
        spec.jobId(),
        spec.table(),
        PlanSummary.PlanStatus.PLANNED,
        null,
        planned.plan().pinned(),
        planned.work().jobDirectory(),
        planned.work().plan(),
        sha256,
        groups.size(),
        IntStream.range(0, groups.size()).boxed().toList(),
        groups.stream().mapToInt(PlannedGroup::inputFiles).sum(),
        groups.stream().mapToLong(PlannedGroup::inputBytes).sum(),
        planned.plan().skippedGroups(),
        System.currentTimeMillis() - started);
  }

  private PlannedJob prepare(JobSpec spec) {
    RewriteOptions options = RewriteOptions.parse(spec.options());
    Table table = access.loadTable(spec.table());
    Expression filter = JobFilter.resolve(spec.filter(), spec.where(), table.schema());
    WorkLocation work =
        WorkLocation.of(spec.workLocation(), table.location(), spec.table(), spec.jobId());
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new PlannedJob(null, work, "The table has no snapshot yet: there is nothing to rewrite");
    }

    BinPackRewriteFilePlanner planner =
        new BinPackRewriteFilePlanner(table, filter, current.snapshotId(), false);
    try {
      planner.init(options.plannerOptions());
    } catch (IllegalArgumentException e) {
      // Iceberg's message may not name the option (e.g. a NumberFormatException): list what was given
      throw new InvalidJobInputException(
          "Invalid rewrite option: " + e.getMessage() + " (options given: " + options.asMap() + ")", e);
    }
    PinnedSnapshot pinned =
        new PinnedSnapshot(
            current.snapshotId(),
            current.sequenceNumber(),
            TableAccess.metadataLocation(table),
            table.schema().schemaId(),
            table.spec().specId(),
            outputSpecId(table, options),
            formatVersion(table));

    List<RewriteFileGroup> groups = new ArrayList<>();
    try (CloseableIterable<RewriteFileGroup> planned = planner.plan().groups()) {
      planned.forEach(groups::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (groups.isEmpty()) {
      String reason =
          new NothingToDoReason(table, filter, current.snapshotId(), options).explain();
      return new PlannedJob(null, work, reason);
    }

    int kept = Math.min(groups.size(), options.maxGroupsPerJob());
    List<PlannedGroup> plannedGroups = new ArrayList<>(kept);
    for (int index = 0; index < kept; index++) {
      plannedGroups.add(toPlannedGroup(index, groups.get(index), table, pinned.outputSpecId()));
    }
    JobPlan plan =
        new JobPlan(
            spec.jobId(),
            spec.table(),
            pinned,
            options.asMap(),
            JobFilter.toJson(filter, table.schema()),
            System.currentTimeMillis(),
            plannedGroups,
            groups.size() - kept);
    return new PlannedJob(plan, work, null);
  }

  private static PlannedGroup toPlannedGroup(
      int index, RewriteFileGroup group, Table table, int outputSpecId) {
    List<FileScanTask> tasks = group.fileScanTasks();
    RewritePath expected = ColumnarEligibility.of(table, tasks, outputSpecId);
    return new PlannedGroup(
        index,
        describePartition(table, tasks),
        tasks.size(),
        group.inputFilesSizeInBytes(),
        tasks.stream().mapToLong(task -> task.file().recordCount()).sum(),
        (int)
            tasks.stream()
                .flatMap(task -> task.deletes().stream())
                .map(ContentFile::location)
                .distinct()
                .count(),
        group.maxOutputFileSize(),
        PlannedTasks.toJson(tasks),
        expected.name(),
        expected.reason());
  }

  /** The partition as a path (e.g. {@code ordered_at_day=2026-06-01}), readable in logs and results. */
  static String describePartition(Table table, List<FileScanTask> tasks) {
    FileScanTask first = tasks.get(0);
    PartitionSpec spec = table.specs().get(first.file().specId());
    boolean oneSpec = tasks.stream().allMatch(t -> t.file().specId() == spec.specId());
    if (!oneSpec) {
      return "(files of several partition specs)";
    }
    if (spec.isUnpartitioned()) {
      return spec.specId() == table.spec().specId() ? "(unpartitioned)" : "(unpartitioned, spec " + spec.specId() + ")";
    }
    TreeSet<String> paths = new TreeSet<>();
    tasks.forEach(task -> paths.add(spec.partitionToPath(task.file().partition())));
    String suffix = spec.specId() == table.spec().specId() ? "" : " (spec " + spec.specId() + ")";
    if (paths.size() > 1) {
      // files of an older spec are grouped together and repartitioned by the output spec
      return String.format(
          "%d partitions from %s to %s%s", paths.size(), paths.first(), paths.last(), suffix);
    }
    return paths.first() + suffix;
  }

  private static int outputSpecId(Table table, RewriteOptions options) {
    String value = options.asMap().get(RewriteOptions.OUTPUT_SPEC_ID);
    if (value == null) {
      return table.spec().specId();
    }
    try {
      int specId = Integer.parseInt(value.trim());
      if (!table.specs().containsKey(specId)) {
        throw new InvalidJobInputException(
            String.format(
                "'%s' is set to %s but the table's spec ids are %s",
                RewriteOptions.OUTPUT_SPEC_ID, value, table.specs().keySet()));
      }
      return specId;
    } catch (NumberFormatException e) {
      throw new InvalidJobInputException(
          String.format("'%s' is set to %s but must be an integer", RewriteOptions.OUTPUT_SPEC_ID, value));
    }
  }

  private static int formatVersion(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().formatVersion();
  }

  private PlanSummary nothingToDo(JobSpec spec, PlannedJob planned, long planningMillis) {
    LOG.info("[{} {} planner] nothing to do: {}", spec.table(), spec.jobId(), planned.reason());
    return new PlanSummary(
        spec.jobId(),
        spec.table(),
        PlanSummary.PlanStatus.NOTHING_TO_DO,
        planned.reason(),
        null,
        planned.work().jobDirectory(),
        null,
        null,
        0,
        List.of(),
        0,
        0,
        0,
        planningMillis);
  }

  /** A plan before it is stored; {@code plan} is null when there is nothing to do. */
  public record PlannedJob(JobPlan plan, WorkLocation work, String reason) {}
}
