package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonFormat;

/**
 * The table state a job was planned against. Workers load exactly this metadata file (no catalog
 * call), and the committer validates every concurrent change against this snapshot. The snapshot id
 * is written as a JSON string (see {@link JobResult}): the plan summary travels through Step
 * Functions.
 */
public record PinnedSnapshot(
    @JsonFormat(shape = JsonFormat.Shape.STRING) long snapshotId,
    long sequenceNumber,
    String metadataLocation,
    int schemaId,
    int defaultSpecId,
    int outputSpecId,
    int formatVersion) {

  /**
   * {@code current}, the snapshot of {@code table} a job pins, writing with {@code outputSpecId}.
   */
  public static PinnedSnapshot of(
      org.apache.iceberg.Table table, org.apache.iceberg.Snapshot current, int outputSpecId) {
    return new PinnedSnapshot(
        current.snapshotId(),
        current.sequenceNumber(),
        io.icecompact.core.table.TableAccess.metadataLocation(table),
        table.schema().schemaId(),
        table.spec().specId(),
        outputSpecId,
        org.apache.iceberg.TableUtil.formatVersion(table));
  }
}
