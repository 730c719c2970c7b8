package io.icecompact.core.job;

/** The small answer of a worker: enough for progress and the Map state's output, nothing bulky. */
public record GroupStatus(
    String jobId,
    int groupIndex,
    int attempt,
    long inputRows,
    long deletedRows,
    long outputRows,
    int outputFiles,
    long outputBytes,
    String resultLocation) {}
