package io.icecompact.core.metrics;

import io.icecompact.core.job.JobResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's figures as one CloudWatch Embedded Metric Format document: a JSON log line that CloudWatch
 * turns into metrics (namespace {@value #NAMESPACE}, dimension {@code Table}) without any API call or
 * extra permission, and that stays searchable as a log record with the job id.
 *
 * <p>Written by hand rather than with a metrics library: EMF is a small, stable JSON shape and the
 * functions already carry Jackson.
 */
public final class JobMetrics {
  public static final String NAMESPACE = "icecompact";

  private JobMetrics() {}

  /** The EMF document for a finished job; {@code timestampMillis} is when it was recorded. */
  public static Map<String, Object> emf(JobResult result, long timestampMillis) {
    Map<String, Number> values = new LinkedHashMap<>();
    values.put("RewrittenDataFiles", result.rewrittenDataFilesCount());
    values.put("AddedDataFiles", result.addedDataFilesCount());
    values.put("RewrittenBytes", result.rewrittenBytesCount());
    values.put("FailedDataFiles", result.failedDataFilesCount());
    values.put("RemovedDeleteFiles", result.removedDeleteFilesCount());
    values.put("RewrittenGroups", result.rewrittenGroups());
    values.put("FailedGroups", result.failedGroups());
    values.put("ConflictedGroups", result.conflictedGroups());
    values.put("SkippedGroups", result.skippedGroups());
    values.put("JobDuration", result.durationMillis());
    values.put("JobsCommitted", result.status().name().equals("COMMITTED") ? 1 : 0);
    values.put("JobsPartial", result.status().name().equals("PARTIAL") ? 1 : 0);
    values.put("JobsFailed", result.status().name().equals("FAILED") ? 1 : 0);
    values.put("JobsUnknown", result.status().name().equals("UNKNOWN") ? 1 : 0);

    List<Map<String, String>> definitions = new ArrayList<>();
    for (String name : values.keySet()) {
      definitions.add(Map.of("Name", name, "Unit", unit(name)));
    }
    Map<String, Object> document = new LinkedHashMap<>();
    document.put(
        "_aws",
        Map.of(
            "Timestamp", timestampMillis,
            "CloudWatchMetrics",
            List.of(
                Map.of(
                    "Namespace", NAMESPACE,
                    "Dimensions", List.of(List.of("Table")),
                    "Metrics", definitions))));
    document.put("Table", result.table());
    document.put("job_id", result.jobId());
    document.put("status", result.status().name());
    document.putAll(values);
    return document;
  }

  private static String unit(String metric) {
    if (metric.equals("RewrittenBytes")) {
      return "Bytes";
    }
    return metric.equals("JobDuration") ? "Milliseconds" : "Count";
  }
}
