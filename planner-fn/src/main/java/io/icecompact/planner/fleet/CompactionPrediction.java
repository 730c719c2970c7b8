package io.icecompact.planner.fleet;

/**
 * What a job with the table's policy would do, from the planner's dry run. Requests count files: at
 * least one GET per file read, one PUT per file written (a multipart upload of a large file takes
 * more).
 *
 * @param groups file groups the job would rewrite (at most {@code max-groups-per-job})
 * @param skippedGroups groups beyond that, left for a later run
 * @param dataFilesRead data files the groups read
 * @param deleteFilesRead distinct delete files applied to them
 * @param bytesRead data and delete file bytes read
 * @param deletedRowsEstimate rows the deletes remove: positions of file-scoped deletes (capped at
 *     each file's rows) plus the records of partition-scoped and equality delete files (an equality
 *     key usually deletes one row)
 * @param bytesWrittenEstimate the data bytes read less their deleted fraction
 * @param filesWrittenEstimate one file per target size of each group's output, at least one per
 *     group
 * @param requestsRead {@code dataFilesRead + deleteFilesRead}
 * @param requestsWritten {@code filesWrittenEstimate}
 * @param readerRequestsSavedPerScan files a full scan of the rewritten partitions opens before the
 *     job (data files and the delete files applied to them) less after it (the output files): a
 *     lower bound, as a Parquet reader pays about three requests per file (measured: docs/fleet.md,
 *     "The health score")
 * @param targetFileSizeBytes the output size the estimate used
 */
public record CompactionPrediction(
    int groups,
    int skippedGroups,
    long dataFilesRead,
    long deleteFilesRead,
    long bytesRead,
    long deletedRowsEstimate,
    long bytesWrittenEstimate,
    long filesWrittenEstimate,
    long requestsRead,
    long requestsWritten,
    long readerRequestsSavedPerScan,
    long targetFileSizeBytes) {}
