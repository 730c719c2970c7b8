package io.icecompact.planner.fleet;

/** What a sweep does with one table, in the order the decision tree asks. */
public enum Decision {
  /** The planner found file groups: start a job. */
  COMPACT,
  /** {@code icecompact.enabled=false}. */
  SKIP_DISABLED,
  /** The last compaction is more recent than {@code icecompact.min-interval}. */
  SKIP_TOO_SOON,
  /**
   * The planner's dry run with the table's options found no group: a job would exit green and do
   * nothing.
   */
  SKIP_NO_OP,
  /**
   * An {@code icecompact.*} property cannot be used: the reason names it; the other tables go on.
   */
  SKIP_INVALID_POLICY,
  /**
   * The table or its metadata could not be read (dropped after it was listed, a missing manifest, a
   * refused request): the reason says what failed; the other tables go on.
   */
  SKIP_UNREADABLE
}
