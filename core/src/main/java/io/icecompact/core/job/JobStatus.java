package io.icecompact.core.job;

/** How a whole job ended. */
public enum JobStatus {
  /** Every planned group was committed. */
  COMMITTED,
  /** Some groups were committed, others failed or conflicted (see the group outcomes). */
  PARTIAL,
  /** No file met a threshold; no snapshot was made. */
  NOTHING_TO_DO,
  /** Nothing was committed. */
  FAILED,
  /**
   * Nothing was committed, and nothing failed: concurrent commits changed the groups' input files
   * or won every commit race until the job's commit time ran out. Run the job again.
   */
  CONTENDED,
  /** A commit's outcome could not be determined; nothing was deleted. Re-run the committer. */
  UNKNOWN;

  /**
   * Whether the table's care steps may run after a job that ended so: it committed, and every
   * commit is known. After {@code UNKNOWN}, orphan removal could delete output that is live; after
   * the others there is nothing new to care for. The state machine's {@code CareRequested?} choice
   * lists the same (SweepParityTest).
   */
  public boolean careMayFollow() {
    return this == COMMITTED || this == PARTIAL;
  }

  /** Whether a CLI run with this status exits 0. */
  public boolean success() {
    return this == COMMITTED || this == NOTHING_TO_DO;
  }
}
