package io.icecompact.core.job;

/**
 * One attempt to swap the table's metadata for a snapshot of the job, timed in its parts.
 *
 * @param commitIndex which of the job's commits ({@code partial-progress}) it was for
 * @param attempt 1 for the commit's first attempt, counting every attempt (Iceberg's retries and
 *     ours)
 * @param refreshMillis reading the table's current metadata
 * @param applyMillis what Iceberg recomputes on that metadata: validation over the snapshots
 *     committed since the one validated last, the manifests it filters and writes, the manifest
 *     list
 * @param checkMillis icecompact's own checks on that metadata (delete files a rewrite would drop)
 * @param swapMillis writing the new metadata file and swapping it in (the catalog's
 *     compare-and-swap)
 * @param tableCommitsMeanwhile commits the table received from the metadata the attempt read to the
 *     next metadata read (what it lost to); 0 for the attempt that won
 * @param outcome {@link Outcome}
 */
public record CommitAttempt(
    int commitIndex,
    int attempt,
    long refreshMillis,
    long applyMillis,
    long checkMillis,
    long swapMillis,
    int tableCommitsMeanwhile,
    Outcome outcome) {

  public enum Outcome {
    /** Its snapshot is the table's. */
    WON,
    /** Another commit swapped the metadata first; the next attempt starts from the new metadata. */
    LOST,
    /**
     * Refused before the swap: a concurrent change conflicts with the job (see the groups'
     * reasons).
     */
    REFUSED,
    /** The swap's answer never came: the outcome was looked up by the job's stamp. */
    UNKNOWN
  }

  /** From reading the metadata to the swap's answer. */
  public long totalMillis() {
    return refreshMillis + applyMillis + checkMillis + swapMillis;
  }
}
