package io.icecompact.infra.cdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CloudWatch dashboard's body, as an {@code Fn::Sub} text: {@code ${AWS::Region}} and the
 * logical ids of the state machines and functions ({@code ${CompactionStateMachine}} = its ARN,
 * {@code ${RewriteGroupFunction}} = its name) are filled in by CloudFormation. infra/template.yaml
 * holds the same text (SamParityTest compares them); a text rather than CDK's dashboard widgets so
 * that the two can be compared and written once.
 *
 * <p>Per-table figures come from the Embedded Metric Format line ReleaseLease prints per job
 * (core/metrics JobMetrics: namespace {@value #NAMESPACE}, dimension {@code Table}); lease figures
 * from AcquireLease's (LeaseMetrics). Tables are found by SEARCH expressions, since the sweep's
 * tables are known only at run time.
 */
final class OperationsDashboard {
  static final String NAMESPACE = "icecompact";

  /** The logical ids the body names, each a variable of the {@code Fn::Sub}. */
  static final List<String> VARIABLES =
      List.of(
          "CompactionStateMachine",
          "SweepStateMachine",
          "RewriteGroupFunction",
          "PlanRewriteFunction",
          "CommitSnapshotFunction");

  private static final int DAY = 86400;
  private static final int HOUR = 3600;

  private final List<Map<String, Object>> widgets = new ArrayList<>();
  private int x;
  private int y;

  private OperationsDashboard() {}

  /** The body, pretty-printed JSON with {@code ${...}} placeholders. */
  static String body() {
    OperationsDashboard d = new OperationsDashboard();
    d.text(
        "## icecompact\nPer-table figures: the line `ReleaseLease` prints per finished job (namespace `icecompact`,"
            + " dimension `Table`). A job's details: `./icecompact history --table <table>` and `status --job-id <id>`.");
    d.metrics(
        "Bytes rewritten per table", DAY, List.of(search("RewrittenBytes", "Sum", DAY, null)));
    d.metrics(
        "Data files rewritten and added per table",
        DAY,
        List.of(
            search("RewrittenDataFiles", "Sum", DAY, null),
            search("AddedDataFiles", "Sum", DAY, null)));
    d.metrics(
        "Job outcomes, all tables",
        HOUR,
        List.of(
            search("JobsCommitted", "Sum", HOUR, "committed"),
            search("JobsPartial", "Sum", HOUR, "partial"),
            search("JobsFailed", "Sum", HOUR, "failed"),
            search("JobsUnknown", "Sum", HOUR, "unknown"),
            search("JobsContended", "Sum", HOUR, "contended")));
    d.metrics(
        "Job duration per table (max, ms)",
        HOUR,
        List.of(search("JobDuration", "Maximum", HOUR, null)));
    d.metrics(
        "Compaction executions",
        HOUR,
        List.of(
            states("ExecutionsStarted", "CompactionStateMachine", "started"),
            states("ExecutionsSucceeded", "CompactionStateMachine", "succeeded"),
            states("ExecutionsFailed", "CompactionStateMachine", "failed"),
            states("ExecutionsTimedOut", "CompactionStateMachine", "timed out"),
            states("ExecutionsAborted", "CompactionStateMachine", "aborted"),
            states("ExecutionsFailed", "SweepStateMachine", "sweeps failed")));
    d.metrics(
        "Compaction execution time (ms)",
        HOUR,
        List.of(
            stat(states("ExecutionTime", "CompactionStateMachine", "p50"), "p50"),
            stat(states("ExecutionTime", "CompactionStateMachine", "p90"), "p90"),
            stat(states("ExecutionTime", "CompactionStateMachine", "max"), "Maximum")));
    d.metrics(
        "Leases: held by another job (waits), taken over, acquired",
        HOUR,
        List.of(
            search("LeaseHeld", "Sum", HOUR, "held by another job"),
            search("LeaseTakeovers", "Sum", HOUR, "taken over after expiry"),
            search("LeaseAcquired", "Sum", HOUR, "acquired")));
    d.metrics(
        "Groups, all tables",
        HOUR,
        List.of(
            search("RewrittenGroups", "Sum", HOUR, "rewritten"),
                search("FailedGroups", "Sum", HOUR, "failed"),
            search("ConflictedGroups", "Sum", HOUR, "conflicted"),
                search("SkippedGroups", "Sum", HOUR, "skipped")));
    d.metrics(
        "Errors and throttles",
        300,
        List.of(
            lambda("Errors", "RewriteGroupFunction", "worker errors"),
            lambda("Throttles", "RewriteGroupFunction", "worker throttles"),
            lambda("Errors", "PlanRewriteFunction", "planner errors"),
            lambda("Errors", "CommitSnapshotFunction", "committer errors")));
    d.metrics(
        "Lambda concurrency (max)",
        300,
        List.of(
            stat(lambda("ConcurrentExecutions", "RewriteGroupFunction", "workers"), "Maximum"),
            stat(
                List.of("AWS/Lambda", "ConcurrentExecutions", Map.of("label", "account")),
                "Maximum"),
            stat(
                List.of(
                    "AWS/Lambda",
                    "UnreservedConcurrentExecutions",
                    Map.of("label", "account, unreserved")),
                "Maximum")));
    d.metrics(
        "Worker duration (ms)",
        HOUR,
        List.of(
            stat(lambda("Duration", "RewriteGroupFunction", "p50"), "p50"),
            stat(lambda("Duration", "RewriteGroupFunction", "p99"), "p99"),
            stat(lambda("Duration", "RewriteGroupFunction", "max"), "Maximum")));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("start", "-P7D");
    body.put("widgets", d.widgets);
    try {
      return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the dashboard body cannot be written", e);
    }
  }

  private void text(String markdown) {
    Map<String, Object> widget = place("text", 24, 2);
    widget.put("properties", Map.of("markdown", markdown));
    widgets.add(widget);
  }

  private void metrics(String title, int period, List<Object> metrics) {
    Map<String, Object> widget = place("metric", 12, 6);
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("title", title);
    properties.put("region", "${AWS::Region}");
    properties.put("view", "timeSeries");
    properties.put("stacked", false);
    properties.put("stat", "Sum");
    properties.put("period", period);
    properties.put("metrics", metrics);
    widget.put("properties", properties);
    widgets.add(widget);
  }

  /** Left to right, two half-width widgets a row; full-width ones take a row. */
  private Map<String, Object> place(String type, int width, int height) {
    if (x + width > 24) {
      x = 0;
      y += 6;
    }
    Map<String, Object> widget = new LinkedHashMap<>();
    widget.put("type", type);
    widget.put("x", x);
    widget.put("y", y);
    widget.put("width", width);
    widget.put("height", height);
    x += width;
    if (width == 24) {
      x = 0;
      y += height;
    }
    return widget;
  }

  /** One line per table ({@code label} null), or the tables summed into one line. */
  private static List<Object> search(String metric, String stat, int period, String label) {
    String search =
        "SEARCH('{"
            + NAMESPACE
            + ",Table} MetricName=\""
            + metric
            + "\"', '"
            + stat
            + "', "
            + period
            + ")";
    Map<String, Object> expression = new LinkedHashMap<>();
    expression.put("expression", label == null ? search : "SUM(" + search + ")");
    expression.put(
        "id", metric.substring(0, 1).toLowerCase(java.util.Locale.ROOT) + metric.substring(1));
    if (label != null) {
      expression.put("label", label);
    }
    expression.put("period", period);
    return List.of(expression);
  }

  private static List<Object> states(String metric, String stateMachine, String label) {
    return List.of(
        "AWS/States", metric, "StateMachineArn", "${" + stateMachine + "}", Map.of("label", label));
  }

  private static List<Object> lambda(String metric, String function, String label) {
    return List.of(
        "AWS/Lambda", metric, "FunctionName", "${" + function + "}", Map.of("label", label));
  }

  /** The metric line with its own statistic (the last element of a line holds its options). */
  private static List<Object> stat(List<Object> line, String stat) {
    List<Object> out = new ArrayList<>(line);
    @SuppressWarnings("unchecked")
    Map<String, Object> options =
        new LinkedHashMap<>((Map<String, Object>) out.remove(out.size() - 1));
    options.put("stat", stat);
    out.add(options);
    return out;
  }
}
