package io.icecompact.cli.history;

import io.icecompact.core.job.JobResult;
import io.icecompact.lease.JobLogEntry;

/**
 * One past job: its entry as the job log keeps it (status, counts, start, duration, error,
 * execution) and, when it was stored and could be read, its whole result with every group's outcome
 * (else null).
 */
public record JobRecord(JobLogEntry entry, JobResult result) {}
