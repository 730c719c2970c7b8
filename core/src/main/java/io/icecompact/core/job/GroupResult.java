package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * What a worker wrote for one group, stored next to the plan. Output files are Iceberg {@code
 * ContentFileParser} JSON so the committer can add them without re-reading them.
 *
 * <p>{@code rewritePath} names the path the worker took ({@code RewritePath.COLUMNAR} or {@code
 * GENERIC}) and {@code rewritePathReason} why (for the generic path: what made the group ineligible
 * for the columnar one). {@code spilledBytes}: bytes of sorted runs the worker wrote to its local
 * disk to sort the group beyond memory (0 when it sorted in memory or not at all; absent from
 * results stored before it was added).
 */
public record GroupResult(
    String jobId,
    int groupIndex,
    int attempt,
    long pinnedSnapshotId,
    int schemaId,
    int outputSpecId,
    List<String> inputFiles,
    List<String> appliedDeleteFiles,
    long inputRows,
    long deletedRows,
    long outputRows,
    long outputBytes,
    List<JsonNode> outputFiles,
    String rewritePath,
    String rewritePathReason,
    long durationMillis,
    long spilledBytes) {

  /**
   * This result without its input, applied-delete and output file lists: the counts and the path.
   */
  public GroupResult withoutFileLists() {
    return new GroupResult(
        jobId,
        groupIndex,
        attempt,
        pinnedSnapshotId,
        schemaId,
        outputSpecId,
        List.of(),
        List.of(),
        inputRows,
        deletedRows,
        outputRows,
        outputBytes,
        List.of(),
        rewritePath,
        rewritePathReason,
        durationMillis,
        spilledBytes);
  }
}
