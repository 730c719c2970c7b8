package io.icecompact.worker;

import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.RowOrder;
import io.icecompact.core.options.RewriteStrategy;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.rewrite.ColumnarEligibility;
import io.icecompact.core.rewrite.GroupRewritePath;
import io.icecompact.core.rewrite.RewriteOutput;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.core.table.TableAccess;
import io.icecompact.worker.columnar.ColumnarRewritePath;
import io.icecompact.worker.columnar.Preparation;
import io.icecompact.worker.columnar.PreparedGroup;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import io.icecompact.worker.sort.ExternalSortedRows;
import io.icecompact.worker.sort.InMemorySortLimit;
import io.icecompact.worker.sort.SortSpill;
import io.icecompact.worker.sort.SpillLimit;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
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
 * metadata file, and the group's delete files are re-derived from that snapshot. Output files are named {@code <group>-<attempt>-<job id>-<n>.parquet}, so every
 * attempt writes new files and all of a job's outputs can be found by its id.
 *
 * <p>A retry of a group whose earlier attempt already stored a result returns that result: the
 * earlier attempt finished, only its answer was lost.
 */
public final class GroupRewriter {
  private static final Logger LOG = LoggerFactory.getLogger(GroupRewriter.class);

  /** The end of a group's path reason when its rows were sorted in memory as columns. */
  public static final String SORTED_IN_COLUMNS = "sorted in memory as columns";

  private final TableAccess access;
  private final RewritePathChoice pathChoice;
  private final PrefetchLimits prefetch;
  private final int columnThreads;
  private final long crossCheckManifestBytes;
  // the heap one group's in-memory sort may count on; groups rewritten at once share the JVM's
  private volatile long sortHeapBytes = Runtime.getRuntime().maxMemory();
  // where a group beyond that heap spills its sorted runs: Lambda's /tmp (its ephemeral storage)
  private volatile Path spillDirectory = Path.of(System.getProperty("java.io.tmpdir"));
  // The plan index (checked by digest) and the pinned metadata file never change, and a warm worker (a
  // thread pool here, a reused Lambda container in AWS) usually rewrites groups of the same job:
  // keep the last of each instead of parsing them again for every group.
  private final AtomicReference<CachedPlan> lastPlan = new AtomicReference<>();
  private final AtomicReference<CachedTable> lastTable = new AtomicReference<>();
  private final PinnedSnapshotTasks snapshotTasks =
      PinnedSnapshotTasks.forHeap(Runtime.getRuntime().maxMemory());
  private final AtomicReference<PrefetchStats> prefetched = new AtomicReference<>(PrefetchStats.NONE);
  private final AtomicReference<SortSpill.Spilled> spilled = new AtomicReference<>(SortSpill.Spilled.NONE);

  private record CachedPlan(String location, String sha256, JobPlan plan) {}

  private record CachedTable(String metadataLocation, Table table) {}

  public GroupRewriter(TableAccess access) {
    this(access, RewritePathChoice.AUTO);
  }

  public GroupRewriter(TableAccess access, RewritePathChoice pathChoice) {
    this(access, pathChoice, PrefetchLimits.forHeap(Runtime.getRuntime().maxMemory()));
  }

  /** With the limits of the input prefetch ({@link PrefetchLimits#OFF} reads every file directly). */
  public GroupRewriter(TableAccess access, RewritePathChoice pathChoice, PrefetchLimits prefetch) {
    this(access, pathChoice, prefetch, defaultColumnThreads(1));
  }

  /**
   * With the threads the columnar path copies a group's columns on. A Lambda worker rewrites one
   * group, and its memory buys it several vCPUs; a runner rewriting several groups at once gives each
   * its share ({@link #defaultColumnThreads}).
   */
  public GroupRewriter(TableAccess access, RewritePathChoice pathChoice, PrefetchLimits prefetch, int columnThreads) {
    this(access, pathChoice, prefetch, columnThreads, LiveTaskResolver.CROSS_CHECK_MANIFEST_BYTES);
  }

  /**
   * With the most manifest bytes a group's cross-check against the pinned snapshot may read (see
   * {@link LiveTaskResolver}); 0 always rewrites the group document's tasks as they are.
   */
  public GroupRewriter(
      TableAccess access, RewritePathChoice pathChoice, PrefetchLimits prefetch, int columnThreads,
      long crossCheckManifestBytes) {
    if (columnThreads < 1) {
      throw new IllegalArgumentException("columnThreads must be >= 1, got " + columnThreads);
    }
    this.access = access;
    this.pathChoice = pathChoice;
    this.prefetch = prefetch;
    this.columnThreads = columnThreads;
    this.crossCheckManifestBytes = crossCheckManifestBytes;
  }

  /**
   * Gives each group's in-memory sort {@code heapBytes} of heap (default the whole heap, right for a
   * Lambda worker, which rewrites one group at a time); a runner rewriting several groups at once gives
   * each its share. Returns this rewriter.
   */
  public GroupRewriter sortingWithin(long heapBytes) {
    if (heapBytes < 1) {
      throw new IllegalArgumentException("heapBytes must be >= 1, got " + heapBytes);
    }
    this.sortHeapBytes = heapBytes;
    return this;
  }

  /**
   * Spills the sorted runs of groups beyond the sort heap under {@code directory} (default
   * {@code java.io.tmpdir}, Lambda's /tmp). Returns this rewriter.
   */
  public GroupRewriter spillingTo(Path directory) {
    this.spillDirectory = directory;
    return this;
  }

  /**
   * Column threads for each of {@code groupsAtOnce} groups: the processors but one, shared. One is left
   * to the JIT compiler, the garbage collector and the input prefetch: on 2 cores, copying columns on
   * 2 threads measured slower than on 1 (docs/performance.md).
   */
  public static int defaultColumnThreads(int groupsAtOnce) {
    return Math.max(1, (Runtime.getRuntime().availableProcessors() - 1) / Math.max(1, groupsAtOnce));
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
   * The next attempt number of a group, claimed in the work location: how both runners number attempts, so
   * overlapping attempts (a retry after a lost answer) never share a number.
   */
  public int claimAttempt(String workLocation, int groupIndex) {
    FileIO io = access.fileIO();
    return new JobStore(io, S3CreateIfAbsent.forFileIO(io)).claimAttempt(new WorkLocation(workLocation), groupIndex);
  }

  public GroupStatus rewrite(GroupRequest request) {
    return rewrite(request, done -> {});
  }

  /** Rewrites the group; {@code progress} receives the number of input files done so far. */
  public GroupStatus rewrite(GroupRequest request, IntConsumer progress) {
    long started = System.currentTimeMillis();
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = new WorkLocation(request.workLocation());
    JobPlan plan = plan(store, request);
    PlannedGroup group = plan.group(request.groupIndex());

    Optional<GroupResult> earlier = store.readGroupResult(work, group.index());
    if (earlier.isPresent() && earlier.get().jobId().equals(plan.jobId())) {
      LOG.info(
          "[{} {} worker group {}] attempt {} found the result of attempt {}; returning it",
          plan.table(), plan.jobId(), group.index(), request.attempt(), earlier.get().attempt());
      return status(earlier.get(), work);
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
                table, plan.pinned().metadataLocation(), plan.pinned().snapshotId(), plan.filter(), filter),
            crossCheckManifestBytes);

    // outputs are created through a view of the table that records each one first (OutputRecordingFileIO)
    Table writing =
        withIO(table, new OutputRecordingFileIO(table.io(), store, work, group.index(), request.attempt()));
    OutputFileFactory files =
        OutputFileFactory.builderFor(writing, group.index(), request.attempt())
            .operationId(plan.jobId())
            .format(FileFormat.PARQUET)
            .defaultSpec(table.specs().get(plan.pinned().outputSpecId()))
            .build();
    RewriteOutput output;
    try (PrefetchingFileIO inputs = PrefetchingFileIO.start(table.io(), tasks, prefetch)) {
      // both paths read every input through table.io(): a view of the table whose io() is the prefetch
      Table reading = withIO(table, inputs);
      output = rewriteGroup(reading, table.io(), plan, group, tasks, files, progress);
      PrefetchStats stats = inputs.stats();
      prefetched.accumulateAndGet(stats, PrefetchStats::plus);
      LOG.debug("[{} {} worker group {}] input prefetch: {}", plan.table(), plan.jobId(), group.index(), stats);
    }

    GroupResult result =
        new GroupResult(
            plan.jobId(),
            group.index(),
            request.attempt(),
            plan.pinned().snapshotId(),
            table.schema().schemaId(),
            plan.pinned().outputSpecId(),
            tasks.stream().map(task -> task.file().location()).toList(),
            tasks.stream()
                .flatMap(task -> task.deletes().stream())
                .map(ContentFile::location)
                .distinct()
                .toList(),
            output.rowsRead(),
            output.rowsDeleted(),
            output.rowsWritten(),
            output.bytesWritten(),
            output.dataFiles().stream()
                .map(file -> JobJson.tree(ContentFileParser.toJson(file, table.specs().get(file.specId()))))
                .toList(),
            output.path(),
            output.pathReason(),
            System.currentTimeMillis() - started,
            output.spilledBytes());
    storeOrDeleteOutputs(store, work, result, output, table.io());
    LOG.info(
        "[{} {} worker group {}] {} files ({} rows, {} deleted) -> {} files in {} ms, {} path ({})",
        plan.table(), plan.jobId(), group.index(), tasks.size(), output.rowsRead(),
        output.rowsDeleted(), output.dataFiles().size(), result.durationMillis(), output.path(),
        output.pathReason());
    return status(result, work);
  }

  /**
   * Stores the group's result. When that fails and the result is surely not stored, the outputs are
   * deleted before the failure is raised: no committer would ever name them, and each retry of the
   * group would leave another set. When the write may have landed (it failed, but reading back finds it
   * or fails too), they are kept: a stored result whose outputs are gone fails the whole job's commit.
   */
  private static void storeOrDeleteOutputs(
      JobStore store, WorkLocation work, GroupResult result, RewriteOutput output, FileIO io) {
    try {
      store.writeGroupResult(work, result);
    } catch (RuntimeException e) {
      boolean surelyAbsent;
      try {
        surelyAbsent = store.readGroupResult(work, result.groupIndex())
            .filter(stored -> stored.jobId().equals(result.jobId()) && stored.attempt() == result.attempt())
            .isEmpty();
      } catch (RuntimeException unknown) {
        surelyAbsent = false;
      }
      if (surelyAbsent) {
        for (DataFile file : output.dataFiles()) {
          try {
            io.deleteFile(file.location());
          } catch (RuntimeException ignored) {
            // left for remove-orphans; the failure to store the result is the one to raise
          }
        }
      }
      LOG.warn("[{} worker group {}] attempt {} could not store its result; its {} output files were {}",
          result.jobId(), result.groupIndex(), result.attempt(), output.dataFiles().size(),
          surelyAbsent ? "deleted" : "kept (the result may have been stored)");
      throw e;
    }
  }

  /**
   * The columnar path where the group is eligible (judged from metadata, then from the files'
   * footers), the generic path otherwise; the output names the path taken and why.
   */
  private RewriteOutput rewriteGroup(
      Table table,
      FileIO footerIO,
      JobPlan plan,
      PlannedGroup group,
      List<FileScanTask> tasks,
      OutputFileFactory files,
      IntConsumer progress) {
    int outputSpecId = plan.pinned().outputSpecId();
    GroupDeleteLoader deleteLoader = new GroupDeleteLoader(table, tasks, group.index());
    if (plan.rowOrder() != null) {
      return rewriteInOrder(table, plan, group, tasks, files, progress, deleteLoader);
    }
    GroupRewritePath generic =
        new GenericRewritePath(table, outputSpecId, group.maxOutputFileSize(), tasks, deleteLoader, null, null, false);
    if (pathChoice == RewritePathChoice.GENERIC) {
      return generic.rewrite(files, table.io(), progress, "generic path requested");
    }
    RewritePath expected = ColumnarEligibility.of(table, tasks, outputSpecId);
    if (!expected.isColumnar()) {
      return generic.rewrite(files, table.io(), progress, expected.reason());
    }
    Preparation preparation = ColumnarRewritePath.prepare(table, tasks, footerIO);
    if (!(preparation instanceof PreparedGroup prepared)) {
      return generic.rewrite(files, table.io(), progress, preparation.refusal().orElseThrow());
    }
    GroupRewritePath columnar =
        new ColumnarRewritePath(
            table, outputSpecId, group.maxOutputFileSize(), deleteLoader, columnThreads, prepared);
    return columnar.rewrite(files, table.io(), progress, expected.reason());
  }

  /**
   * A group whose plan orders its rows, on the generic path (the columnar path keeps input order): sorted
   * in memory when it fits the sort heap (as columns, or as records under {@link RewritePathChoice#GENERIC}), else in sorted runs spilled to the spill directory and merged.
   * A group whose runs would not fit on that disk fails under {@code strategy=sort}; under bin-pack,
   * which keeps a sorted table's order only where it can, it is written in input order and its result
   * says so.
   */
  private RewriteOutput rewriteInOrder(
      Table table, JobPlan plan, PlannedGroup group, List<FileScanTask> tasks, OutputFileFactory files,
      IntConsumer progress, GroupDeleteLoader deleteLoader) {
    int outputSpecId = plan.pinned().outputSpecId();
    long heap = sortHeapBytes;
    RowOrder order = plan.rowOrder();
    String reason = ColumnarEligibility.of(table, tasks, outputSpecId, order).reason();
    if (InMemorySortLimit.fits(group, heap)) {
      // the generic choice keeps the record sort: the reference the column sort is measured against
      boolean inColumns = pathChoice != RewritePathChoice.GENERIC;
      return new GenericRewritePath(
              table, outputSpecId, group.maxOutputFileSize(), tasks, deleteLoader, order, null, inColumns)
          .rewrite(files, table.io(), progress, reason + (inColumns ? "; " + SORTED_IN_COLUMNS : ""));
    }
    Path spillTo = spillDirectory;
    int abandoned = ExternalSortedRows.deleteAbandoned(spillTo);
    if (abandoned > 0) {
      LOG.info("[{} {} worker group {}] deleted {} directories of sorted runs left by ended workers in {}",
          plan.table(), plan.jobId(), group.index(), abandoned, spillTo);
    }
    long usable = SpillLimit.usableSpace(spillTo);
    if (SpillLimit.fits(group, usable) || RewriteStrategy.SORT.optionValue().equals(plan.strategy())) {
      SpillLimit.check(group, spillTo, usable);
      GenericRewritePath external =
          new GenericRewritePath(table, outputSpecId, group.maxOutputFileSize(), tasks, deleteLoader, order,
              new SortSpill(spillTo, SpillLimit.runRows(group, heap)), false);
      RewriteOutput output =
          external.rewrite(files, table.io(), progress, reason + "; sorted beyond memory, in runs spilled to local disk");
      SortSpill.Spilled spilled = external.spilled();
      this.spilled.accumulateAndGet(spilled, SortSpill.Spilled::plus);
      LOG.info("[{} {} worker group {}] sorted beyond memory: {} runs, {} bytes spilled to {}",
          plan.table(), plan.jobId(), group.index(), spilled.runs(), spilled.bytes(), spillTo);
      return output.withSpilledBytes(spilled.bytes());
    }
    String notKept = String.format(Locale.ROOT,
        "the table's sort order %s is not kept: the group holds more than the %d bytes of Parquet a worker"
            + " sorts in memory, and more than the %d its sorted runs would fit in on local disk",
        order.sortOrder(), InMemorySortLimit.forHeap(heap), SpillLimit.forDisk(usable));
    return new GenericRewritePath(table, outputSpecId, group.maxOutputFileSize(), tasks, deleteLoader, null, null, false)
        .rewrite(files, table.io(), progress, notKept);
  }

  private JobPlan plan(JobStore store, GroupRequest request) {
    CachedPlan cached = lastPlan.get();
    if (cached != null
        && cached.location().equals(request.planLocation())
        && cached.sha256().equalsIgnoreCase(String.valueOf(request.planSha256()))
        && cached.plan().jobId().equals(request.jobId())) {
      return cached.plan();
    }
    JobPlan plan = store.readPlan(request.jobId(), request.planLocation(), request.planSha256());
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

  private static Table withIO(Table table, FileIO io) {
    TableOperations operations = ((HasTableOperations) table).operations();
    return new BaseTable(
        new StaticTableOperations(operations.current(), io, operations.locationProvider()), table.name());
  }

  private static GroupStatus status(GroupResult result, WorkLocation work) {
    return new GroupStatus(
        result.jobId(),
        result.groupIndex(),
        result.attempt(),
        result.inputRows(),
        result.deletedRows(),
        result.outputRows(),
        result.outputFiles().size(),
        result.outputBytes(),
        work.groupResult(result.groupIndex()));
  }
}
