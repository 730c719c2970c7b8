package io.icecompact.worker;

import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.RowOrder;
import io.icecompact.core.options.RewriteStrategy;
import io.icecompact.core.rewrite.ColumnarEligibility;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.worker.columnar.ColumnarRewritePath;
import io.icecompact.worker.columnar.Preparation;
import io.icecompact.worker.columnar.PreparedGroup;
import io.icecompact.worker.orc.OrcStripeEligibility;
import io.icecompact.worker.sort.ExternalSortedRows;
import io.icecompact.worker.sort.InMemorySortLimit;
import io.icecompact.worker.sort.SortSpill;
import io.icecompact.worker.sort.SpillLimit;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a group's {@link GroupRoute} is chosen. A group the job does not order takes the
 * columnar path where it is eligible (judged from metadata, then from the files' footers), an ORC
 * group the stripe copy where it is ({@link OrcStripeEligibility}), the generic path otherwise. A
 * group the job orders takes the generic path (the columnar path keeps input order): sorted in
 * memory when it fits the sort heap (as columns, or as records under {@link
 * RewritePathChoice#GENERIC}), else in sorted runs spilled to the spill directory. A group whose
 * runs would not fit on that disk fails under {@code strategy=sort}; under bin-pack, which keeps a
 * sorted table's order only where it can, it is written in input order and its reason says so.
 */
final class GroupRouteChooser {
  private static final Logger LOG = LoggerFactory.getLogger(GroupRouteChooser.class);

  private final WorkerSettings settings;

  GroupRouteChooser(WorkerSettings settings) {
    this.settings = settings;
  }

  /**
   * The route of {@code group}, whose live tasks are {@code tasks}. Choosing the columnar route
   * reads every input's footer through {@code footerIO} (see {@link ColumnarRewritePath#prepare});
   * choosing a spilled sort first deletes the runs ended workers left in the spill directory, so
   * that its free space counts.
   */
  GroupRoute choose(
      Table table, FileIO footerIO, JobPlan plan, PlannedGroup group, List<FileScanTask> tasks) {
    RowOrder order = plan.rowOrder();
    if (order == null && settings.pathChoice() == RewritePathChoice.GENERIC) {
      return new GroupRoute.InputOrder("generic path requested");
    }
    // Judged here once, not taken from the planner's verdict in the plan
    // (PlannedGroup.expectedRewritePath):
    // these tasks were re-derived from the pinned snapshot (LiveTaskResolver), and a plan made by
    // another
    // release's planner was judged by that release's rules; it reads metadata only, so it costs
    // next to nothing.
    RewritePath expected =
        ColumnarEligibility.of(table, tasks, plan.pinned().outputSpecId(), order);
    if (order != null) {
      return sorted(plan, group, order, expected.reason());
    }
    if (!expected.isColumnar()) {
      OrcStripeEligibility.Decision orc =
          OrcStripeEligibility.judge(table, footerIO, tasks, plan.pinned().outputSpecId());
      if (orc.group() != null) {
        return new GroupRoute.OrcStripes(orc.group(), orc.reason());
      }
      return new GroupRoute.InputOrder(
          orc.orc() ? expected.reason() + "; " + orc.reason() : expected.reason());
    }
    Preparation preparation = ColumnarRewritePath.prepare(table, tasks, footerIO);
    if (preparation instanceof PreparedGroup prepared) {
      return new GroupRoute.Columnar(prepared, expected.reason());
    }
    return new GroupRoute.InputOrder(preparation.refusal().orElseThrow());
  }

  /** {@code reason}: why not columnar; each route's reason adds how the rows were sorted. */
  private GroupRoute.Generic sorted(
      JobPlan plan, PlannedGroup group, RowOrder order, String reason) {
    long heap = settings.sortHeapBytes();
    if (InMemorySortLimit.fits(group, heap)) {
      // the generic choice keeps the record sort: the reference the column sort is measured against
      return settings.pathChoice() == RewritePathChoice.GENERIC
          ? new GroupRoute.SortedAsRecords(order, reason)
          : new GroupRoute.SortedAsColumns(order, reason + "; " + GroupRoute.SORTED_IN_COLUMNS);
    }
    Path spillTo = settings.spillDirectory();
    int abandoned = ExternalSortedRows.deleteAbandoned(spillTo);
    if (abandoned > 0) {
      LOG.info(
          "[{} {} worker group {}] deleted {} directories of sorted runs left by ended workers in {}",
          plan.table(),
          plan.jobId(),
          group.index(),
          abandoned,
          spillTo);
    }
    long usable = SpillLimit.usableSpace(spillTo);
    if (SpillLimit.fits(group, usable)
        || RewriteStrategy.SORT.optionValue().equals(plan.strategy())) {
      SpillLimit.check(group, spillTo, usable);
      return new GroupRoute.SortedInSpilledRuns(
          order,
          new SortSpill(spillTo, SpillLimit.runRows(group, heap)),
          reason + "; sorted beyond memory, in runs spilled to local disk");
    }
    return new GroupRoute.OrderNotKept(
        order,
        String.format(
            Locale.ROOT,
            "the table's sort order %s is not kept: the group holds more than the %d bytes of Parquet a worker"
                + " sorts in memory, and more than the %d its sorted runs would fit in on local disk",
            order.sortOrder(),
            InMemorySortLimit.forHeap(heap),
            SpillLimit.forDisk(usable)));
  }
}
