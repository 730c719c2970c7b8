package io.icecompact.planner.fleet;

import io.icecompact.core.job.JobAction;

/** What a sweep does with one table, in the order the decision tree asks. */
public enum Decision {
  /** The planner found file groups: start a job. */
  COMPACT,
  /**
   * Live equality deletes apply to data files already near their target size (or the table's {@code
   * icecompact.equality-deletes.action} says convert): start a job that replaces them by position
   * deletes or deletion vectors and leaves the data files as they are.
   */
  CONVERT_EQUALITY_DELETES,
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
  SKIP_UNREADABLE;

  /** Whether a sweep starts a job for the table. */
  public boolean startsJob() {
    return this == COMPACT || this == CONVERT_EQUALITY_DELETES;
  }

  /** The job a sweep starts for this decision ({@link #startsJob()} only). */
  public JobAction jobAction() {
    return this == CONVERT_EQUALITY_DELETES
        ? JobAction.CONVERT_EQUALITY_DELETES
        : JobAction.REWRITE_DATA_FILES;
  }
}
