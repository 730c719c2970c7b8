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
    int formatVersion) {}
