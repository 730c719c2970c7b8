package io.icecompact.committer;

import java.util.List;

/**
 * Written before each commit attempt: which groups snapshot number {@code commitIndex} of the job
 * holds. A committer re-run maps the job's snapshots (found by their summary stamp) back to groups.
 */
record CommitIntent(String jobId, int commitIndex, List<Integer> groupIndexes) {}
