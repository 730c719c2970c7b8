package io.icecompact.planner;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.filter.JobFilter;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PinnedSnapshot;
import io.icecompact.core.job.PlanRef;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.RowOrder;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.options.RowOrderChoice;
import io.icecompact.core.rewrite.ColumnarEligibility;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.core.scope.DeploymentScope;
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
 * The planner stage: pins the table's current snapshot, plans file groups with Iceberg's {@link
 * BinPackRewriteFilePlanner}, stores the plan in the job's work location (an index and one document
 * per group, see {@link JobPlan}) and returns a summary whose size depends on the number of groups
 * only.
 *
 * <p>Memory: Iceberg's planner holds every planned file's scan task (without column statistics)
 * until it has grouped them; each group's document is then written and its tasks let go, so the
 * planner never holds the JSON of more than a few groups.
 *
 * <p>Checks everything a user can get wrong (options, filter, table) before writing anything.
 */
public final class RewritePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(RewritePlanner.class);

  private final TableAccess access;
  private final DeploymentScope scope;

  public RewritePlanner(TableAccess access) {
    this(access, DeploymentScope.unrestricted());
  }

  /**
   * A planner that refuses a table, or a table or work location, outside {@code scope} before
   * writing.
   */
  public RewritePlanner(TableAccess access, DeploymentScope scope) {
    this.access = access;
    this.scope = scope;
  }

  /**
   * Plans without storing anything: the dry run. The plan's entries have no digests, and the
   * groups' tasks are kept in memory ({@link PlannedJob#tasks}).
   */
  public PlannedJob dryRun(JobSpec spec) {
    if (spec.jobAction() != JobAction.REWRITE_DATA_FILES) {
      throw new InvalidJobInputException(
          "A dry run plans rewrites only; run convert-equality-deletes without --dry-run");
    }
    return prepare(spec.withJobIdIfAbsent(), null);
  }

  /**
   * Plans the job and stores it in its work location: one document per group, written while the
   * next groups are described, then the index.
   *
   * @throws io.icecompact.core.error.TransientException when the environment failed (S3 answering
   *     503 while the table's manifests are read, a reset connection), which is worth a retry;
   *     other errors as thrown
   */
  public PlanSummary plan(JobSpec requested) {
    if (requested.jobAction() == JobAction.CONVERT_EQUALITY_DELETES) {
      // the planner stage plans both actions: its callers (the Lambda step, both runners) need not
      // know which
      return new ConvertPlanner(access, scope).plan(requested);
    }
    JobSpec spec = requested.withJobIdIfAbsent();
    try {
      return planAndStore(spec);
    } catch (RuntimeException e) {
      throw retryableIfTransient(e, spec);
    }
  }

  /**
   * The planner's word on a failure, for both runners: an untyped failure of the environment
   * becomes a {@link io.icecompact.core.error.TransientException} (the state machine's Retry
   * matches it, the embedded runner reports it as such); a typed or application error is returned
   * as it is.
   */
  static RuntimeException retryableIfTransient(RuntimeException failure, JobSpec job) {
    return FailureClassifier.retryableIfTransient(
        failure, "Cannot plan job " + job.jobId() + " of " + job.table());
  }

  private PlanSummary planAndStore(JobSpec spec) {
    long started = System.currentTimeMillis();
    JobStore store = new JobStore(access.fileIO());
    PlannedJob planned = prepare(spec, store);
    long planningMillis = System.currentTimeMillis() - started;
    if (planned.plan() == null) {
      return nothingToDo(spec, planned, planningMillis);
    }
    String sha256 = store.writePlan(planned.work(), planned.plan());
    List<PlannedGroup> groups = planned.plan().groups();
    LOG.info(
        "[{} {} planner] planned {} groups of {} files pinned at snapshot {}",
        spec.table(),
        spec.jobId(),
        groups.size(),
        groups.stream().mapToInt(PlannedGroup::inputFiles).sum(),
        planned.plan().pinned().snapshotId());
    return summary(planned.plan(), planned.work(), sha256, System.currentTimeMillis() - started);
  }

  /** The summary of a stored plan index whose SHA-256 is {@code sha256}. */
  public static PlanSummary summary(
      JobPlan plan, WorkLocation work, String sha256, long planningMillis) {
    List<PlannedGroup> groups = plan.groups();
    return new PlanSummary(
        new PlanRef(plan.jobId(), plan.table(), work.jobDirectory(), sha256),
        null,
        plan.pinned(),
        groups.size(),
        IntStream.range(0, groups.size()).boxed().toList(),
        groups.stream().mapToInt(PlannedGroup::inputFiles).sum(),
        groups.stream().mapToLong(PlannedGroup::inputBytes).sum(),
        plan.skippedGroups(),
        planningMillis);
  }

  /**
   * Where the job will write: its work location, and the table's data location (a table property
   * such as {@code write.data.path} may put data files outside the table's location).
   */
  private void checkLocations(Table table, WorkLocation work) {
    scope.checkTableLocations(table);
    scope.checkLocation("work location", work.jobDirectory());
  }

  /** Plans; stores each group's document through {@code store}, or keeps its tasks when null. */
  private PlannedJob prepare(JobSpec spec, JobStore store) {
    RewriteOptions options = RewriteOptions.parse(spec.options());
    scope.checkTable(spec.table());
    Table table = access.loadTable(spec.table());
    Expression filter = JobFilter.resolve(spec.filter(), spec.where(), table.schema());
    WorkLocation work =
        WorkLocation.of(spec.workLocation(), table.location(), spec.table(), spec.jobId());
    checkLocations(table, work);
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new PlannedJob(
          null, work, "The table has no snapshot yet: there is nothing to rewrite", null);
    }

    BinPackRewriteFilePlanner planner =
        new BinPackRewriteFilePlanner(table, filter, current.snapshotId(), false);
    try {
      planner.init(options.plannerOptions());
    } catch (IllegalArgumentException e) {
      // Iceberg's message may not name the option (e.g. a NumberFormatException): list what was
      // given
      throw new InvalidJobInputException(
          "Invalid rewrite option: " + e.getMessage() + " (options given: " + options.asMap() + ")",
          e);
    }
    PinnedSnapshot pinned = PinnedSnapshot.of(table, current, outputSpecId(table, options));

    // Spark's sort planner is the bin-pack planner (SparkShufflingDataRewritePlanner adds only an
    // output
    // size estimate): the same groups are sorted instead of concatenated
    RowOrder rowOrder = RowOrderChoice.of(options, table, pinned.outputSpecId());
    List<RewriteFileGroup> groups = new ArrayList<>();
    try (CloseableIterable<RewriteFileGroup> planned = planner.plan().groups()) {
      planned.forEach(groups::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (groups.isEmpty()) {
      String reason = new NothingToDoReason(table, filter, current.snapshotId(), options).explain();
      return new PlannedJob(null, work, reason, null);
    }

    int total = groups.size();
    int kept = Math.min(total, options.maxGroupsPerJob());
    groups.subList(kept, total).clear(); // left for the next run: let their tasks go
    List<List<FileScanTask>> keptTasks = store == null ? tasksOf(groups) : null;
    List<PlannedGroup> plannedGroups =
        store == null
            ? describe(groups, table, pinned.outputSpecId(), rowOrder)
            : store(groups, table, pinned.outputSpecId(), rowOrder, store, work, spec.jobId());
    JobPlan plan =
        new JobPlan(
            spec.jobId(),
            spec.table(),
            pinned,
            options.asMap(),
            JobFilter.toJson(filter, table.schema()),
            System.currentTimeMillis(),
            plannedGroups,
            total - kept,
            options.strategy().optionValue(),
            rowOrder);
    return new PlannedJob(plan, work, null, keptTasks);
  }

  private static List<List<FileScanTask>> tasksOf(List<RewriteFileGroup> groups) {
    return groups.stream().map(RewriteFileGroup::fileScanTasks).toList();
  }

  /** The dry run's index entries, without digests: nothing is stored. */
  private static List<PlannedGroup> describe(
      List<RewriteFileGroup> groups, Table table, int outputSpecId, RowOrder rowOrder) {
    List<PlannedGroup> entries = new ArrayList<>(groups.size());
    for (int index = 0; index < groups.size(); index++) {
      entries.add(toPlannedGroup(index, groups.get(index), table, outputSpecId, rowOrder, null));
    }
    return entries;
  }

  /**
   * Stores each group's document and returns the index entries, letting each group go once written.
   */
  private static List<PlannedGroup> store(
      List<RewriteFileGroup> groups,
      Table table,
      int outputSpecId,
      RowOrder rowOrder,
      JobStore store,
      WorkLocation work,
      String jobId) {
    try (GroupPlanWriter writer = new GroupPlanWriter(store, work, jobId, table.specs())) {
      for (int index = 0; index < groups.size(); index++) {
        RewriteFileGroup group = groups.get(index);
        int groupIndex = index;
        writer.write(
            index,
            group.fileScanTasks(),
            sha256 -> toPlannedGroup(groupIndex, group, table, outputSpecId, rowOrder, sha256));
        groups.set(index, null); // the writer holds it until written
      }
      return writer.entries();
    }
  }

  private static PlannedGroup toPlannedGroup(
      int index,
      RewriteFileGroup group,
      Table table,
      int outputSpecId,
      RowOrder rowOrder,
      String sha256) {
    List<FileScanTask> tasks = group.fileScanTasks();
    RewritePath expected = ColumnarEligibility.of(table, tasks, outputSpecId, rowOrder);
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
        expected.name(),
        expected.reason(),
        sha256);
  }

  /**
   * The partition as a path (e.g. {@code ordered_at_day=2026-06-01}), readable in logs and results.
   */
  static String describePartition(Table table, List<FileScanTask> tasks) {
    FileScanTask first = tasks.get(0);
    PartitionSpec spec = table.specs().get(first.file().specId());
    boolean oneSpec = tasks.stream().allMatch(t -> t.file().specId() == spec.specId());
    if (!oneSpec) {
      return "(files of several partition specs)";
    }
    if (spec.isUnpartitioned()) {
      return spec.specId() == table.spec().specId()
          ? "(unpartitioned)"
          : "(unpartitioned, spec " + spec.specId() + ")";
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
          String.format(
              "'%s' is set to %s but must be an integer", RewriteOptions.OUTPUT_SPEC_ID, value));
    }
  }

  private PlanSummary nothingToDo(JobSpec spec, PlannedJob planned, long planningMillis) {
    LOG.info("[{} {} planner] nothing to do: {}", spec.table(), spec.jobId(), planned.reason());
    return PlanSummary.nothingToDo(
        new PlanRef(spec.jobId(), spec.table(), planned.work().jobDirectory(), null),
        planned.reason(),
        planningMillis);
  }

  /**
   * A plan; {@code plan} is null when there is nothing to do. A dry run keeps each group's tasks
   * ({@code groupTasks}, by group index); a stored plan does not (null).
   */
  public record PlannedJob(
      JobPlan plan, WorkLocation work, String reason, List<List<FileScanTask>> groupTasks) {
    /** The tasks of group {@code index} of a dry run. */
    public List<FileScanTask> tasks(int index) {
      if (groupTasks == null) {
        throw new IllegalStateException(
            "A stored plan keeps no tasks: read them with JobStore.readGroupTasks");
      }
      return groupTasks.get(index);
    }
  }
}
