package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.options.SortOrderText;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;

/**
 * How a job orders each group's rows, as its plan records it: resolved against the pinned schema by
 * the planner, read back by every worker.
 *
 * @param sortOrder the order in Spark's syntax, every direction and null order spelt out, for
 *     people
 * @param icebergSortOrder a linear order in Iceberg's JSON form ({@link SortOrderParser}); null for
 *     a z-order
 * @param zOrderColumns the z-ordered columns; null for a linear order
 * @param outputSortOrderId the sort order id the output files carry: the table's sort order equal
 *     to the linear order, else 0 (unsorted), as Spark's rewrite does; always 0 for a z-order,
 *     which no Iceberg sort order can describe
 * @param zOrderVarLengthBytes a z-order's {@code var-length-contribution}; null for a linear order
 * @param zOrderMaxBytes a z-order's {@code max-output-size}; null for a linear order
 */
public record RowOrder(
    String sortOrder,
    JsonNode icebergSortOrder,
    List<String> zOrderColumns,
    int outputSortOrderId,
    Integer zOrderVarLengthBytes,
    Integer zOrderMaxBytes) {

  public RowOrder {
    zOrderColumns = zOrderColumns == null ? null : List.copyOf(zOrderColumns);
  }

  /** A linear order bound to {@code schema}, written on files as {@code outputSortOrderId}. */
  public static RowOrder linear(SortOrder order, Schema schema, int outputSortOrderId) {
    return new RowOrder(
        SortOrderText.describe(order, schema),
        JobJson.tree(SortOrderParser.toJson(order)),
        null,
        outputSortOrderId,
        null,
        null);
  }

  /**
   * Spark's {@code zorder(columns)}, strings and binaries contributing {@code varLengthBytes} each,
   * the z-value cut at {@code maxBytes}; the files say unsorted.
   */
  public static RowOrder zOrder(List<String> columns, int varLengthBytes, int maxBytes) {
    return new RowOrder(
        SortOrderText.describeZOrder(columns),
        null,
        columns,
        SortOrder.unsorted().orderId(),
        varLengthBytes,
        maxBytes);
  }

  /** Whether rows are ordered by z-value rather than by a linear order. */
  public boolean zOrdered() {
    return zOrderColumns != null;
  }

  /** The linear order, bound to {@code schema} (the pinned one). */
  public SortOrder linearOrder(Schema schema) {
    if (icebergSortOrder == null) {
      throw new IllegalStateException("A z-order has no linear sort order: " + sortOrder);
    }
    return SortOrderParser.fromJson(schema, icebergSortOrder);
  }
}
