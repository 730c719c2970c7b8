package io.icecompact.core.options;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.RowOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SortOrderUtil;

/**
 * The row order a job's options ask of a table, resolved as Spark's {@code rewrite_data_files}
 * resolves {@code strategy} and {@code sort_order}: {@code sort} without a sort order uses the
 * table's; a given order is checked against the table's schema. Called by the planner before
 * anything is written, so a bad order fails the job with the table untouched.
 *
 * <p>Bin-pack on a table with a sort order keeps that order, as users expect of a table they
 * declared sorted (Spark's bin-pack concatenates): the worker sorts a group that fits in memory and
 * leaves a larger one in input order, saying so, where {@code strategy=sort} would fail it.
 */
public final class RowOrderChoice {
  private RowOrderChoice() {}

  /** The order of every group's rows, or null to keep input order. */
  public static RowOrder of(RewriteOptions options, Table table, int outputSpecId) {
    if (options.strategy() == RewriteStrategy.BINPACK) {
      SortOrder tableOrder = table.sortOrder();
      return tableOrder.isSorted()
          ? RowOrder.linear(tableOrder, table.schema(), tableOrder.orderId())
          : null;
    }
    Schema schema = table.schema();
    RequestedSortOrder requested = options.requestedSortOrder().orElse(null);
    if (requested == null) {
      SortOrder tableOrder = table.sortOrder();
      if (!tableOrder.isSorted()) {
        throw new InvalidJobInputException(
            String.format(
                "'%s' is sort but the table has no sort order and '%s' is not set: set '%s' (e.g."
                    + " \"id ASC\" or \"zorder(a, b)\") or give the table a sort order",
                RewriteOptions.STRATEGY, RewriteOptions.SORT_ORDER, RewriteOptions.SORT_ORDER));
      }
      return RowOrder.linear(tableOrder, schema, tableOrder.orderId());
    }
    if (requested instanceof RequestedSortOrder.ZOrder zOrder) {
      return RowOrder.zOrder(
          zOrder.bind(schema, table.specs().get(outputSpecId)),
          options.varLengthContribution(),
          options.maxOutputSize());
    }
    SortOrder order = ((RequestedSortOrder.Linear) requested).bind(schema);
    // the files carry the id of the table's equal order, or say unsorted: Spark does the same
    return RowOrder.linear(order, schema, SortOrderUtil.findTableSortOrder(table, order).orderId());
  }
}
