package io.icecompact.infra.cdk;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One table compacted on a schedule: an EventBridge Scheduler schedule that starts the state
 * machine with this table's execution input (state-machine/execution-input.schema.json). The SAM
 * template's table slots (TableN, TableNSchedule, ScheduleOptionsJson) give the table, the schedule
 * and the options; the other fields of the input are optional here and left out when not set.
 */
public final class ScheduledTable {
  /**
   * The schema's identifier pattern, without quotes (they would break the JSON input in the SAM
   * template).
   */
  private static final Pattern TABLE = Pattern.compile("^[^.\\s\"]+(\\.[^.\\s\"]+)+$");

  private static final Pattern SCHEDULE = Pattern.compile("^(rate|cron|at)\\(.+\\)$");

  private final String table;
  private final String schedule;
  private final Map<String, String> options;
  private final String where;
  private final String filter;
  private final Integer maxConcurrency;
  private final Integer leaseTtlSeconds;

  private ScheduledTable(Builder b) {
    this.table = b.table;
    this.schedule = b.schedule;
    this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
    this.where = b.where;
    this.filter = b.filter;
    this.maxConcurrency = b.maxConcurrency;
    this.leaseTtlSeconds = b.leaseTtlSeconds;
  }

  /** A table with no options, e.g. {@code of("analytics.orders", "rate(1 day)")}. */
  public static ScheduledTable of(String table, String schedule) {
    return builder(table, schedule).build();
  }

  /**
   * @param table Iceberg table identifier, namespace(s) and name separated by dots
   * @param schedule an EventBridge Scheduler expression: {@code rate(6 hours)}, {@code cron(0 3 * *
   *     ? *)}
   */
  public static Builder builder(String table, String schedule) {
    return new Builder(table, schedule);
  }

  public String table() {
    return table;
  }

  public String schedule() {
    return schedule;
  }

  public Map<String, String> options() {
    return options;
  }

  /**
   * The execution input this table's schedule starts the state machine with: the same fields, in
   * the same order, as the SAM template's schedules (options always present, {@code {}} when none).
   */
  public Map<String, Object> executionInput(
      Map<String, String> catalogProperties, String workLocation) {
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("table", table);
    input.put("catalog_properties", catalogProperties);
    input.put("options", options);
    if (where != null) {
      input.put("where", where);
    }
    if (filter != null) {
      input.put("filter", filter);
    }
    input.put("work_location", workLocation);
    if (maxConcurrency != null) {
      input.put("max_concurrency", maxConcurrency);
    }
    if (leaseTtlSeconds != null) {
      input.put("lease_ttl_seconds", leaseTtlSeconds);
    }
    return input;
  }

  @Override
  public String toString() {
    return "ScheduledTable[" + table + ", " + schedule + "]";
  }

  public static final class Builder {
    private final String table;
    private final String schedule;
    private final Map<String, String> options = new LinkedHashMap<>();
    private String where;
    private String filter;
    private Integer maxConcurrency;
    private Integer leaseTtlSeconds;

    private Builder(String table, String schedule) {
      this.table = Objects.requireNonNull(table, "table");
      this.schedule = Objects.requireNonNull(schedule, "schedule");
    }

    /**
     * Rewrite options with Iceberg's names (docs/configuration.md); checked by the planner at run
     * time.
     */
    public Builder options(Map<String, String> rewriteOptions) {
      rewriteOptions.forEach(this::option);
      return this;
    }

    public Builder option(String name, String value) {
      options.put(
          Objects.requireNonNull(name, "option name"),
          Objects.requireNonNull(value, "option " + name));
      return this;
    }

    /**
     * A readable filter, e.g. {@code ordered_at >= '2026-06-01'}; exclusive with {@link #filter}.
     */
    public Builder where(String expression) {
      this.where = expression;
      return this;
    }

    /** A filter in Iceberg's JSON expression form; exclusive with {@link #where}. */
    public Builder filter(String jsonExpression) {
      this.filter = jsonExpression;
      return this;
    }

    /** Workers running at once (default 40). */
    public Builder maxConcurrency(int workers) {
      this.maxConcurrency = workers;
      return this;
    }

    /** How long the table's lease lasts unless released (default 7200 s). */
    public Builder leaseTtlSeconds(int seconds) {
      this.leaseTtlSeconds = seconds;
      return this;
    }

    public ScheduledTable build() {
      PropsCheck.that(
          TABLE.matcher(table).matches(),
          "'table' is set to '"
              + table
              + "' but must be namespace(s) and name separated by dots, without spaces or quotes");
      PropsCheck.that(
          SCHEDULE.matcher(schedule).matches(),
          "'schedule' of "
              + table
              + " is set to '"
              + schedule
              + "' but must be an EventBridge Scheduler expression: rate(...), cron(...) or at(...)");
      PropsCheck.that(
          where == null || filter == null,
          "'where' and 'filter' of " + table + " are both set but are exclusive");
      PropsCheck.that(where == null || !where.isEmpty(), "'where' of " + table + " is empty");
      PropsCheck.that(filter == null || !filter.isEmpty(), "'filter' of " + table + " is empty");
      if (maxConcurrency != null) {
        PropsCheck.range("maxConcurrency", maxConcurrency, 1, 10000);
      }
      if (leaseTtlSeconds != null) {
        PropsCheck.range("leaseTtlSeconds", leaseTtlSeconds, 60, 86400);
      }
      return new ScheduledTable(this);
    }
  }
}
