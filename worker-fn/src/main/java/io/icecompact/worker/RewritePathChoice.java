package io.icecompact.worker;

/** Which rewrite path a worker may take for a group. */
public enum RewritePathChoice {
  /**
   * The columnar fast path where the group is eligible, the generic path otherwise (the default); a
   * group sorted in memory is sorted as columns ({@code ColumnSortedRows}).
   */
  AUTO,
  /**
   * Always Iceberg's generic record path, sorting in memory as records ({@code SortedRows}): the
   * reference the fast paths are compared against.
   */
  GENERIC
}
