package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * What a worker of a {@code convert-equality-deletes} job wrote for one group, stored at {@link
 * WorkLocation#convertedGroup}: one entry per data file of the group. Delete files are Iceberg
 * {@code ContentFileParser} JSON, so the committer adds and removes them without reading them.
 *
 * @param bytesRead bytes of data files read: their key columns' chunks, or whole files when the
 *     metadata lacks column sizes
 */
public record ConvertedGroup(
    String jobId,
    int groupIndex,
    int attempt,
    long pinnedSnapshotId,
    List<File> files,
    long bytesRead,
    long durationMillis) {

  /**
   * One data file's conversion.
   *
   * @param dataFile the data file's location (never rewritten)
   * @param equalityDeletes locations of the equality delete files that apply to it at the pinned
   *     snapshot
   * @param positions rows newly deleted by position: matched by one of those equality deletes and
   *     not deleted by position already
   * @param positionDeletes the new position delete file (v2) or deletion vector (v3, in the group's
   *     one Puffin file); null when no row of the file matched
   * @param replacedDeletes the file's previous DV or file-scoped position deletes merged into the
   *     new ones, which the commit removes
   */
  public record File(
      String dataFile,
      List<String> equalityDeletes,
      long positions,
      JsonNode positionDeletes,
      List<JsonNode> replacedDeletes) {}

  public long positions() {
    return files.stream().mapToLong(File::positions).sum();
  }

  /**
   * Delete files written, as Iceberg counts them (a snapshot's {@code added-delete-files}): v2's
   * position delete files, v3's deletion vectors (one Puffin file holds a group's).
   */
  public int deleteFilesWritten() {
    return (int) files.stream().filter(file -> file.positionDeletes() != null).count();
  }
}
