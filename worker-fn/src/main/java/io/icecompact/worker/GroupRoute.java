package io.icecompact.worker;

import io.icecompact.core.job.RowOrder;
import io.icecompact.worker.columnar.PreparedGroup;
import io.icecompact.worker.orc.OrcStripeCopyPath;
import io.icecompact.worker.orc.OrcStripeGroup;
import io.icecompact.worker.sort.ColumnSortedRows;
import io.icecompact.worker.sort.ExternalSortedRows;
import io.icecompact.worker.sort.SortSpill;
import io.icecompact.worker.sort.SortedRows;

/**
 * How one group is rewritten: the path, and on the generic path the order its rows are written in.
 * Chosen once per group, by {@link GroupRouteChooser}; {@link #reason} is what the group's result
 * records as its path's reason.
 */
public sealed interface GroupRoute
    permits GroupRoute.Columnar, GroupRoute.OrcStripes, GroupRoute.Generic {
  /** The end of a group's path reason when its rows were sorted in memory as columns. */
  String SORTED_IN_COLUMNS = "sorted in memory as columns";

  /** Why the group takes this route, as its result records it. */
  String reason();

  /** The columnar copy of a group whose footers were read and checked: rows in input order. */
  record Columnar(PreparedGroup group, String reason) implements GroupRoute {}

  /** ORC files merged by copying their stripes ({@link OrcStripeCopyPath}): rows in input order. */
  record OrcStripes(OrcStripeGroup group, String reason) implements GroupRoute {}

  /**
   * Iceberg's generic reader and writer ({@link GenericRewritePath}), in one of these row orders.
   */
  sealed interface Generic extends GroupRoute permits InputOrder, OrderNotKept, Sorted {}

  /** Rows in input order, as the job asks; {@code reason} says why not columnar. */
  record InputOrder(String reason) implements Generic {}

  /**
   * Rows in input order though the job orders them (bin-pack of a sorted table): the group fits
   * neither the sort heap nor, in sorted runs, the spill disk; {@code reason} says so.
   */
  record OrderNotKept(RowOrder order, String reason) implements Generic {}

  /** Rows written in {@link #order}. */
  sealed interface Sorted extends Generic
      permits SortedAsRecords, SortedAsColumns, SortedInSpilledRuns {
    RowOrder order();
  }

  /**
   * Sorted in memory as Iceberg records ({@link SortedRows}): the reference the column sort is
   * measured against.
   */
  record SortedAsRecords(RowOrder order, String reason) implements Sorted {}

  /** Sorted in memory held as columns ({@link ColumnSortedRows}): the same sequence, faster. */
  record SortedAsColumns(RowOrder order, String reason) implements Sorted {}

  /**
   * Sorted beyond memory, in sorted runs spilled to local disk and merged ({@link
   * ExternalSortedRows}).
   */
  record SortedInSpilledRuns(RowOrder order, SortSpill spill, String reason) implements Sorted {}
}
