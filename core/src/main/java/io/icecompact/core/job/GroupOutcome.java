package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonFormat;

/**
 * How one planned group ended, with the reason when it did not end rewritten. The snapshot id is
 * written as a JSON string (see {@link JobResult}). {@code spilledBytes}: bytes of sorted runs its
 * worker wrote to local disk to sort the group beyond memory (0 when it sorted in memory or did not
 * sort).
 */
public record GroupOutcome(
    int groupIndex,
    String partition,
    Status status,
    String reason,
    int inputFiles,
    long inputBytes,
    int outputFiles,
    long outputRows,
    @JsonFormat(shape = JsonFormat.Shape.STRING) Long snapshotId,
    String rewritePath,
    String rewritePathReason,
    long spilledBytes) {

  public enum Status {
    /** Its output is in a committed snapshot. */
    REWRITTEN,
    /**
     * A {@code convert-equality-deletes} group: its position deletes are in a committed snapshot,
     * which retired the equality deletes every converted data file needed.
     */
    CONVERTED,
    /** Its worker failed, or its result broke an invariant; nothing of it was committed. */
    FAILED,
    /** A concurrent commit changed its input files; its output was dropped and deleted. */
    CONFLICTED,
    /**
     * Its commit lost every compare-and-swap to the table's other writers until the job's commit
     * time ran out; nothing is wrong with it, and its output was deleted. The next run compacts it.
     */
    CONTENDED,
    /**
     * Planned, but not committed because the job stopped (allow-partial=false or an unknown
     * commit).
     */
    NOT_COMMITTED
  }
}
