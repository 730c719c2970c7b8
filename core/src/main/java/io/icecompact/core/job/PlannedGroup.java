package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One file group of the plan: the files one worker rewrites together, as Iceberg scan tasks serialized
 * by {@code ScanTaskParser} (each carries its data file and the delete files that apply to it).
 *
 * <p>The expected rewrite path is judged from metadata only ({@code ColumnarEligibility}); the worker
 * also reads the files' footers and may still take the generic path.
 */
public record PlannedGroup(
    int index,
    String partition,
    int inputFiles,
    long inputBytes,
    long inputRows,
    int deleteFiles,
    long maxOutputFileSize,
    List<JsonNode> tasks,
    String expectedRewritePath,
    String expectedRewritePathReason) {}
