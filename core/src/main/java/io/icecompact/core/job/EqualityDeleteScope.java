package io.icecompact.core.job;

import java.util.Map;

/**
 * For a {@code convert-equality-deletes} job: how many data files of the pinned snapshot, in the
 * whole table and not only the job's filter, each live equality delete file applies to (by the
 * sequence numbers and partition scopes Iceberg's scan honours). Stored by the planner beside the
 * plan; the committer retires an equality delete only when the job converted every one of those
 * data files, so a delete that still applies to a file the job did not convert (outside the filter,
 * in a group left for the next run, in a failed group) stays in the table.
 *
 * @param pinnedSnapshotId the snapshot the counts were taken at
 * @param dataFilesPerDelete equality delete file location to the number of data files it applies to
 */
public record EqualityDeleteScope(long pinnedSnapshotId, Map<String, Integer> dataFilesPerDelete) {
  public EqualityDeleteScope {
    dataFilesPerDelete = Map.copyOf(dataFilesPerDelete);
  }
}
