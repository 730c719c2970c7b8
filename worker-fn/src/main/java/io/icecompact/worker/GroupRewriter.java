package io.icecompact.worker;

import io.icecompact.core.error.GroupAttempts;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.table.TableFormats;
import io.icecompact.worker.columnar.ColumnarRewritePath;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import io.icecompact.worker.orc.OrcStripeCopyPath;
import io.icecompact.worker.sort.SortSpill;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker stage: rewrites one planned group and stores its result next to the plan.
 *
 * <p>It talks to storage only (never to the catalog): the plan index and the group's own document
 * are read (never the other groups') and their digests checked, the table is loaded from the pinned
 * metadata file, and the group's delete files are re-derived from that snapshot. Output files are
 * named {@code <group>-<attempt>-<job id>-<n>.parquet}, so every attempt writes new files and all
 * of a job's outputs can be found by its id.
 *
 * <p>A retry of a group whose earlier attempt already stored a result returns that result: the
 * earlier attempt finished, only its answer was lost.
 *
 * <p>A {@code convert-equality-deletes} job's group is converted instead ({@link GroupConverter}):
 * the same plan, attempts and output records, no data file written.
 *
 * <p>How the group is rewritten is its {@link GroupRoute}, chosen once ({@link GroupRouteChooser})
 * with this rewriter's {@link WorkerSettings}; its result is made and stored by {@link
 * GroupResults}.
 */
public final class GroupRewriter {
  private static final Logger LOG = LoggerFactory.getLogger(GroupRewriter.class);

  private final TableAccess access;
  private final WorkerSettings settings;
  private final GroupRouteChooser routes;
  // The plan index (checked by digest) and the pinned metadata file never change, and a warm worker
  // (a
  // thread pool here, a reused Lambda container in AWS) usually rewrites groups of the same job:
  // keep the last of each instead of parsing them again for every group.
  private final AtomicReference<CachedPlan> lastPlan = new AtomicReference<>();
  private final AtomicReference<CachedTable> lastTable = new AtomicReference<>();
  private final PinnedSnapshotTasks snapshotTasks =
      PinnedSnapshotTasks.forHeap(Runtime.getRuntime().maxMemory());
  private final AtomicReference<PrefetchStats> prefetched =
      new AtomicReference<>(PrefetchStats.NONE);
  private final AtomicReference<SortSpill.Spilled> spilled =
      new AtomicReference<>(SortSpill.Spilled.NONE);

  private record CachedPlan(String location, String sha256, JobPlan plan) {}

  private record CachedTable(String metadataLocation, Table table) {}

  /** A Lambda worker's rewriter: {@link WorkerSettings#defaults}. */
  public GroupRewriter(TableAccess access) {
    this(access, WorkerSettings.defaults());
  }

  public GroupRewriter(TableAccess access, WorkerSettings settings) {
    this.access = access;
    this.settings = settings;
    this.routes = new GroupRouteChooser(settings);
  }

  /** What the input prefetch did over every group this rewriter has rewritten. */
  public PrefetchStats prefetchStats() {
    return prefetched.get();
  }

  /** What sorting beyond memory spilled over every group this rewriter has rewritten. */
  public SortSpill.Spilled spillStats() {
    return spilled.get();
  }

  /**
   * The next attempt number of a group, claimed in the work location: how both runners number
   * attempts, so overlapping attempts (a retry after a lost answer) never share a number.
   */
  public int claimAttempt(String workLocation, int groupIndex) {
    FileIO io = access.fileIO();
    return new JobStore(io, S3CreateIfAbsent.forFileIO(io))
        .claimAttempt(new WorkLocation(workLocation), groupIndex);
  }

  /**
   * Rewrites the group and stores its result. A failure leaves typed as both runners' retries read
   * it ({@link GroupAttempts#classify}: an untyped failure of the environment becomes transient);
   * an {@code OutOfMemoryError} is left to the runner, which names the heap setting of its own
   * environment.
   */
  public GroupStatus rewrite(GroupRequest request) {
    try {
      return rewriteGroup(request);
    } catch (RuntimeException e) {
      // the rewrite paths type their own reads and writes; this catches the rest (the pinned
      // snapshot's
      // manifests), which reached the Map under the SDK's class name and failed the group unretried
      throw GroupAttempts.classify(e, request.groupIndex(), request.jobId());
    }
  }

  private GroupStatus rewriteGroup(GroupRequest request) {
    long started = System.currentTimeMillis();
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = new WorkLocation(request.workLocation());
    JobPlan plan = plan(store, request);
    PlannedGroup group = plan.group(request.groupIndex());

    if (plan.converts()) {
      Optional<GroupStatus> converted =
          GroupConverter.earlierResult(store, work, plan, group.index());
      if (converted.isPresent()) {
        return converted.get();
      }
    }
    Optional<GroupResult> earlier =
        plan.converts() ? Optional.empty() : store.readGroupResult(work, group.index());
    if (earlier.isPresent() && earlier.get().jobId().equals(plan.jobId())) {
      LOG.info(
          "[{} {} worker group {}] attempt {} found the result of attempt {}; returning it",
          plan.table(),
          plan.jobId(),
          group.index(),
          request.attempt(),
          earlier.get().attempt());
      return GroupResults.status(earlier.get(), work);
    }

    Table table = pinnedTable(plan);
    if (table.schema().schemaId() != plan.pinned().schemaId()) {
      throw new PlanIntegrityException(
          String.format(
              "Pinned metadata has schema %d but the plan was made with schema %d",
              table.schema().schemaId(), plan.pinned().schemaId()));
    }
    Expression filter = ExpressionParser.fromJson(plan.filter(), table.schema());
    List<FileScanTask> tasks =
        LiveTaskResolver.resolve(
            table,
            plan.pinned().snapshotId(),
            filter,
            store.readGroupTasks(work, plan, group.index()),
            snapshotTasks.tasks(
                table,
                plan.pinned().metadataLocation(),
                plan.pinned().snapshotId(),
                plan.filter(),
                filter),
            settings.crossCheckManifestBytes());

    if (plan.converts()) {
      return GroupConverter.convert(
          plan, group, request.attempt(), table, tasks, store, work, started);
    }
    // outputs are created through a view of the table that records each one first
    // (OutputRecordingFileIO)
    Table writing =
        withIO(
            table,
            new OutputRecordingFileIO(table.io(), store, work, group.index(), request.attempt()));
    OutputFileFactory files =
        OutputFileFactory.builderFor(writing, group.index(), request.attempt())
            .operationId(plan.jobId())
            .format(TableFormats.dataFormat(table))
            .defaultSpec(table.specs().get(plan.pinned().outputSpecId()))
            .build();
    RewriteOutput output;
    try (PrefetchingFileIO inputs =
        PrefetchingFileIO.start(table.io(), tasks, settings.prefetch())) {
      // both paths read every input through table.io(): a view of the table whose io() is the
      // prefetch
      Table reading = withIO(table, inputs);
      // footers are read through the table's own FileIO, not the prefetch
      // (ColumnarRewritePath.prepare)
      GroupRoute route = routes.choose(reading, table.io(), plan, group, tasks);
      output = rewrite(route, reading, plan, group, tasks, files);
      PrefetchStats stats = inputs.stats();
      prefetched.accumulateAndGet(stats, PrefetchStats::plus);
      LOG.debug(
          "[{} {} worker group {}] input prefetch: {}",
          plan.table(),
          plan.jobId(),
          group.index(),
          stats);
    }

    GroupResult result =
        GroupResults.of(
            plan,
            group.index(),
            request.attempt(),
            table,
            tasks,
            output,
            System.currentTimeMillis() - started);
    GroupResults.storeOrDeleteOutputs(store, work, result, output, table.io());
    LOG.info(
        "[{} {} worker group {}] {} files ({} rows, {} deleted) -> {} files in {} ms, {} path ({})",
        plan.table(),
        plan.jobId(),
        group.index(),
        tasks.size(),
        output.rowsRead(),
        output.rowsDeleted(),
        output.dataFiles().size(),
        result.durationMillis(),
        output.path(),
        output.pathReason());
    return GroupResults.status(result, work);
  }

  /**
   * Rewrites the group on {@code route}'s path; the output names the path and the route's reason.
   */
  private RewriteOutput rewrite(
      GroupRoute route,
      Table table,
      JobPlan plan,
      PlannedGroup group,
      List<FileScanTask> tasks,
      OutputFileFactory files) {
    int outputSpecId = plan.pinned().outputSpecId();
    GroupDeleteLoader deleteLoader = new GroupDeleteLoader(table, tasks, group.index());
    GroupRewritePath path;
    if (route instanceof GroupRoute.Columnar columnar) {
      path =
          new ColumnarRewritePath(
              table,
              outputSpecId,
              group.maxOutputFileSize(),
              deleteLoader,
              settings.columnThreads(),
              columnar.group());
    } else if (route instanceof GroupRoute.OrcStripes orc) {
      path = new OrcStripeCopyPath(table, outputSpecId, group.maxOutputFileSize(), orc.group());
    } else {
      path =
          new GenericRewritePath(
              table,
              outputSpecId,
              group.maxOutputFileSize(),
              tasks,
              deleteLoader,
              (GroupRoute.Generic) route);
    }
    RewriteOutput output = path.rewrite(files, table.io(), done -> {}, route.reason());
    if (route instanceof GroupRoute.SortedInSpilledRuns spilledRuns) {
      SortSpill.Spilled runs = new SortSpill.Spilled(output.spilledRuns(), output.spilledBytes());
      spilled.accumulateAndGet(runs, SortSpill.Spilled::plus);
      LOG.info(
          "[{} {} worker group {}] sorted beyond memory: {} runs, {} bytes spilled to {}",
          plan.table(),
          plan.jobId(),
          group.index(),
          output.spilledRuns(),
          output.spilledBytes(),
          spilledRuns.spill().directory());
    }
    return output;
  }

  private JobPlan plan(JobStore store, GroupRequest request) {
    CachedPlan cached = lastPlan.get();
    if (cached != null
        && cached.location().equals(request.planLocation())
        && cached.sha256().equalsIgnoreCase(String.valueOf(request.planSha256()))
        && cached.plan().jobId().equals(request.jobId())
        && cached.plan().table().equals(request.table())) {
      return cached.plan();
    }
    JobPlan plan = store.readPlan(request.planRef());
    lastPlan.set(new CachedPlan(request.planLocation(), request.planSha256(), plan));
    return plan;
  }

  private Table pinnedTable(JobPlan plan) {
    CachedTable cached = lastTable.get();
    if (cached != null && cached.metadataLocation().equals(plan.pinned().metadataLocation())) {
      return cached.table();
    }
    Table table = access.loadPinned(plan.table(), plan.pinned());
    lastTable.set(new CachedTable(plan.pinned().metadataLocation(), table));
    return table;
  }

  static Table withIO(Table table, FileIO io) {
    TableOperations operations = ((HasTableOperations) table).operations();
    return new BaseTable(
        new StaticTableOperations(operations.current(), io, operations.locationProvider()),
        table.name());
  }
}
