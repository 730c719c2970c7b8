package io.icecompact.core.job;

/**
 * The table state a job was planned against. Workers load exactly this metadata file (no catalog
 * call), and the committer validates every concurrent change against this snapshot.
 */
public record PinnedSnapshot(
    long snapshotId,
    long sequenceNumber,
    String metadataLocation,
    int schemaId,
    int defaultSpecId,
    int outputSpecId,
    int formatVersion) {}
