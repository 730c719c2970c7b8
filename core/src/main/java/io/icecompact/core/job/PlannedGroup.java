package io.icecompact.core.job;

/**
 * One file group's entry in the plan index: what it rewrites, in counts, and the SHA-256 of its
 * group document ({@link GroupPlanDocument}, at {@link WorkLocation#groupPlan}), which holds its
 * scan tasks. A worker reads the index and its own group's document only.
 *
 * <p>The expected rewrite path is judged from metadata only ({@code ColumnarEligibility}); the
 * worker also reads the files' footers and may still take the generic path.
 */
public record PlannedGroup(
    int index,
    String partition,
    int inputFiles,
    long inputBytes,
    long inputRows,
    int deleteFiles,
    long maxOutputFileSize,
    String expectedRewritePath,
    String expectedRewritePathReason,
    String sha256) {}
