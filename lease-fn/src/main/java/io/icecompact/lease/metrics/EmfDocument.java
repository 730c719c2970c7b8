package io.icecompact.lease.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One CloudWatch Embedded Metric Format document: a JSON log line that CloudWatch turns into
 * metrics (namespace {@value #NAMESPACE}, dimension {@code Table}) without any API call or extra
 * permission, and that stays searchable as a log record. EMF wants the directive under {@code _aws}
 * and every metric's value and dimension's value as a top-level member; other top-level members are
 * plain log fields.
 *
 * <p>Written by hand rather than with a metrics library: EMF is a small, stable JSON shape and the
 * functions already carry Jackson.
 */
final class EmfDocument {
  static final String NAMESPACE = "icecompact";
  static final String TABLE_DIMENSION = "Table";

  private final String table;
  private final Map<String, Object> fields = new LinkedHashMap<>();
  private final Map<String, Number> values = new LinkedHashMap<>();
  private final Map<String, String> units = new LinkedHashMap<>();

  EmfDocument(String table) {
    this.table = table;
  }

  /** A plain log field (not a metric), e.g. the job id. */
  EmfDocument field(String name, Object value) {
    fields.put(name, value);
    return this;
  }

  EmfDocument count(String metric, long value) {
    return metric(metric, value, "Count");
  }

  EmfDocument metric(String metric, Number value, String unit) {
    values.put(metric, value);
    units.put(metric, unit);
    return this;
  }

  /** The document, {@code timestampMillis} being when the figures were recorded. */
  Map<String, Object> toMap(long timestampMillis) {
    List<Map<String, String>> definitions = new ArrayList<>();
    units.forEach((name, unit) -> definitions.add(Map.of("Name", name, "Unit", unit)));
    Map<String, Object> document = new LinkedHashMap<>();
    document.put(
        "_aws",
        Map.of(
            "Timestamp",
            timestampMillis,
            "CloudWatchMetrics",
            List.of(
                Map.of(
                    "Namespace", NAMESPACE,
                    "Dimensions", List.of(List.of(TABLE_DIMENSION)),
                    "Metrics", definitions))));
    document.put(TABLE_DIMENSION, table);
    document.putAll(fields);
    document.putAll(values);
    return document;
  }
}
