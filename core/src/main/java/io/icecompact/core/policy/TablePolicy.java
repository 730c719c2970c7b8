package io.icecompact.core.policy;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.InvalidTablePolicyException;
import io.icecompact.core.filter.JobFilter;
import io.icecompact.core.options.RewriteOptions;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.Schema;

/**
 * What icecompact may do to one table, read from the table's own properties (as Amoro does), so a
 * user opts a table in or out, or tunes it, with an {@code ALTER TABLE ... SET TBLPROPERTIES} and
 * no redeploy.
 *
 * <ul>
 *   <li>{@code icecompact.enabled}: {@code true} (default) or {@code false}. Opt-out, because the
 *       sweep is already scoped by the namespaces its operator lists, and a table nobody configured
 *       is exactly the one that fragments unnoticed.
 *   <li>{@code icecompact.min-interval}: an ISO-8601 duration ({@code PT6H}) or a whole number of
 *       minutes; no compaction sooner than this after the last one. Default 0: how often a table is
 *       looked at is the sweep's schedule, and a predicted no-op already starts no job.
 *   <li>{@code icecompact.where}: a partition filter in the CLI's where syntax, e.g. the partitions
 *       the writer still fills ({@code ordered_at >= '2026-06-01'}). Default: the whole table.
 *   <li>{@code icecompact.option.NAME}: any rewrite option, checked as {@code -o NAME=VALUE} is.
 *   <li>{@code icecompact.steps}: the care steps after the rewrite, comma-separated ({@code none}
 *       for none).
 *   <li>{@code icecompact.equality-deletes.action}: {@code auto} (default: the decision tree
 *       converts equality deletes where data files are near their target size and rewrites where
 *       they are small), {@code rewrite} or {@code convert}.
 * </ul>
 *
 * <p>Defaults follow the decision tree of docs/fleet.md: binpack (the only strategy; a sort needs a
 * predicate measured on the table); partial progress on with at most {@value #MAX_COMMITS_DEFAULT}
 * commits; on a v2 table with delete files, the {@code delete-cleanup} step and, while that step is
 * in the list, {@code delete-file-threshold=}{@value #DELETE_FILE_THRESHOLD_V2}. What a user sets
 * always wins over a default.
 *
 * @param enabled whether the table may be compacted at all
 * @param minInterval the least time between two compactions
 * @param where the partition filter, null for the whole table
 * @param options the rewrite options a job gets: the table's, then the defaults it did not set
 * @param steps the care steps to run after the rewrite (the sweep runs them in one fixed order:
 *     delete-cleanup, rewrite-manifests, expire-snapshots, remove-orphans)
 * @param equalityDeletes what to do with live equality deletes: let the decision tree choose,
 *     rewrite or convert
 */
public record TablePolicy(
    boolean enabled,
    @JsonSerialize(using = ToStringSerializer.class) Duration minInterval,
    String where,
    Map<String, String> options,
    List<CareStep> steps,
    EqualityDeletesAction equalityDeletes) {

  public static final String PREFIX = "icecompact.";
  public static final String ENABLED = PREFIX + "enabled";
  public static final String MIN_INTERVAL = PREFIX + "min-interval";
  public static final String WHERE = PREFIX + "where";
  public static final String OPTION_PREFIX = PREFIX + "option.";
  public static final String STEPS = PREFIX + "steps";
  public static final String EQUALITY_DELETES_ACTION = PREFIX + "equality-deletes.action";
  private static final Set<String> KNOWN =
      Set.of(ENABLED, MIN_INTERVAL, WHERE, STEPS, EQUALITY_DELETES_ACTION);

  /**
   * At most this many commits per job. Iceberg's own default: ten commits were measured in one
   * second taken without complaint by Polaris and Lakekeeper (only the reference fixture's SQLite
   * failed), and each commit bounds what a conflict with a row-level writer can discard to one
   * tenth.
   */
  public static final int MAX_COMMITS_DEFAULT = RewriteOptions.PARTIAL_PROGRESS_MAX_COMMITS_DEFAULT;

  /**
   * On v2, any data file with a delete file is a candidate, whatever its size. A v2 reader pays
   * about five requests per data file with deletes where v3 pays three (measured: docs/fleet.md,
   * "The health score"), delete files never go away until the data file they apply to is rewritten,
   * and {@code rewrite_position_delete_files} merges nothing when each data file has one. The
   * measured fix (docs/fleet.md) is exactly this value. The fleet leaves it out of a plan that it
   * would fill mostly with files at their target size (planner-fn's {@code V2DeleteThreshold}).
   */
  public static final int DELETE_FILE_THRESHOLD_V2 = 1;

  /**
   * The steps of a table that names none, when the sweep names no default either: only those that
   * cannot lose history (plus {@code delete-cleanup} on a v2 table with delete files). Snapshot
   * expiry and orphan removal delete files: a user opts into them ({@code icecompact.steps}, the
   * sweep's {@code care_steps}, the deployment's {@code SweepCareSteps}), as Glue's optimizers make
   * retention and orphan deletion separate opt-ins. A default sweep that expired a week of time
   * travel nobody asked to lose, or deleted a file another table shares, is the failure this guards
   * against (issue 24).
   */
  public static final List<CareStep> DEFAULT_STEPS = List.of(CareStep.REWRITE_MANIFESTS);

  /** The steps that delete files and so run only where someone listed them. */
  public static final Set<CareStep> DESTRUCTIVE_STEPS =
      Set.of(CareStep.EXPIRE_SNAPSHOTS, CareStep.REMOVE_ORPHANS);

  public TablePolicy {
    options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    steps = List.copyOf(steps);
    equalityDeletes = equalityDeletes == null ? EqualityDeletesAction.AUTO : equalityDeletes;
  }

  /** A policy that leaves the choice for equality deletes to the decision tree. */
  public TablePolicy(
      boolean enabled,
      Duration minInterval,
      String where,
      Map<String, String> options,
      List<CareStep> steps) {
    this(enabled, minInterval, where, options, steps, EqualityDeletesAction.AUTO);
  }

  /**
   * The policy of {@code table} from its properties, with the defaults of docs/fleet.md for what
   * they leave unset. Fails with an {@link InvalidTablePolicyException} naming the table and the
   * first bad property.
   *
   * @param formatVersion the table's format version
   * @param deleteFiles the live delete files of its current snapshot
   */
  public static TablePolicy of(
      String table,
      Map<String, String> properties,
      Schema schema,
      int formatVersion,
      long deleteFiles) {
    return of(table, properties, schema, formatVersion, deleteFiles, null);
  }

  /**
   * As {@link #of(String, Map, Schema, int, long)}, with the sweep's default steps for a table that
   * does not set {@code icecompact.steps} ({@code null}: {@link #DEFAULT_STEPS}, plus {@code
   * delete-cleanup} on a v2 table with delete files). The table's own property always wins.
   */
  public static TablePolicy of(
      String table,
      Map<String, String> properties,
      Schema schema,
      int formatVersion,
      long deleteFiles,
      List<CareStep> sweepSteps) {
    Map<String, String> own = new TreeMap<>();
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(PREFIX)) {
            own.put(key, value);
          }
        });
    for (String key : own.keySet()) {
      if (!KNOWN.contains(key) && !key.startsWith(OPTION_PREFIX)) {
        throw new InvalidTablePolicyException(
            table,
            key,
            "is not an icecompact property; known: "
                + String.join(", ", new TreeSet<>(KNOWN))
                + ", "
                + OPTION_PREFIX
                + "<rewrite option>");
      }
    }

    boolean enabled = parseEnabled(table, own.get(ENABLED));
    Duration minInterval = parseMinInterval(table, own.get(MIN_INTERVAL));
    String where = parseWhere(table, own.get(WHERE), schema);
    EqualityDeletesAction equalityDeletes =
        EqualityDeletesAction.parse(
            table, EQUALITY_DELETES_ACTION, own.get(EQUALITY_DELETES_ACTION));
    boolean v2WithDeletes = formatVersion == 2 && deleteFiles > 0;

    Map<String, String> given = new LinkedHashMap<>();
    own.forEach(
        (key, value) -> {
          if (key.startsWith(OPTION_PREFIX)) {
            given.put(key.substring(OPTION_PREFIX.length()), value);
          }
        });
    try {
      RewriteOptions.parse(given);
    } catch (InvalidJobInputException e) {
      throw new InvalidTablePolicyException(
          table, optionProperty(given, e), "is invalid: " + e.getMessage(), e);
    }
    List<CareStep> steps;
    if (own.containsKey(STEPS)) {
      steps = parseSteps(table, own.get(STEPS));
    } else if (sweepSteps != null) {
      steps = List.copyOf(sweepSteps);
    } else {
      steps = new ArrayList<>(DEFAULT_STEPS);
      if (v2WithDeletes) {
        steps.add(CareStep.DELETE_CLEANUP);
      }
    }

    Map<String, String> options = new LinkedHashMap<>(given);
    options.putIfAbsent(RewriteOptions.PARTIAL_PROGRESS_ENABLED, "true");
    options.putIfAbsent(
        RewriteOptions.PARTIAL_PROGRESS_MAX_COMMITS, Integer.toString(MAX_COMMITS_DEFAULT));
    // The threshold and the cleanup go together (docs/fleet.md, the decision tree's step 8): a v2
    // position delete file that is not file-scoped still applies by sequence number to the files
    // rewritten from the ones it named (they keep the starting sequence number), so without the
    // cleanup every rewritten file would be a candidate again at the next sweep.
    if (v2WithDeletes && steps.contains(CareStep.DELETE_CLEANUP)) {
      options.putIfAbsent(
          RewriteOptions.DELETE_FILE_THRESHOLD, Integer.toString(DELETE_FILE_THRESHOLD_V2));
    }
    return new TablePolicy(enabled, minInterval, where, options, steps, equalityDeletes);
  }

  /** This policy without the rewrite option {@code name} (the planner's default applies). */
  public TablePolicy withoutOption(String name) {
    Map<String, String> without = new LinkedHashMap<>(options);
    without.remove(name);
    return new TablePolicy(enabled, minInterval, where, without, steps, equalityDeletes);
  }

  /** The property of the option an error names, or the option prefix when it names none. */
  private static String optionProperty(Map<String, String> given, InvalidJobInputException e) {
    return namedOption(given, e.getMessage())
        .map(name -> OPTION_PREFIX + name)
        .orElse(OPTION_PREFIX + "*");
  }

  /**
   * The first of {@code options} that {@code message} names in quotes ({@code 'min-input-files'}).
   */
  public static Optional<String> namedOption(Map<String, String> options, String message) {
    return options.keySet().stream().filter(name -> message.contains("'" + name + "'")).findFirst();
  }

  /**
   * The error of an option only the planner can check (a range rule such as {@code
   * max-file-size-bytes} below the target), as the policy's own errors read: naming the table and
   * the property.
   */
  public InvalidTablePolicyException optionRejectedByPlanner(
      String table, InvalidJobInputException e) {
    String property =
        namedOption(options, e.getMessage())
            .map(name -> OPTION_PREFIX + name)
            .orElse(OPTION_PREFIX + "*");
    return new InvalidTablePolicyException(table, property, "is invalid: " + e.getMessage(), e);
  }

  static boolean parseEnabled(String table, String value) {
    if (value == null) {
      return true;
    }
    String trimmed = value.trim().toLowerCase(Locale.ROOT);
    if (!trimmed.equals("true") && !trimmed.equals("false")) {
      throw new InvalidTablePolicyException(
          table, ENABLED, "is '" + value + "' but must be true or false");
    }
    return Boolean.parseBoolean(trimmed);
  }

  static Duration parseMinInterval(String table, String value) {
    if (value == null) {
      return Duration.ZERO;
    }
    String trimmed = value.trim();
    Duration parsed;
    try {
      parsed =
          trimmed.matches("\\d+")
              ? Duration.ofMinutes(Long.parseLong(trimmed))
              : Duration.parse(trimmed);
    } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
      throw new InvalidTablePolicyException(
          table,
          MIN_INTERVAL,
          "is '"
              + value
              + "' but must be an ISO-8601 duration such as PT6H or a whole number of minutes",
          e);
    }
    if (parsed.isNegative()) {
      throw new InvalidTablePolicyException(
          table, MIN_INTERVAL, "is '" + value + "' but must not be negative");
    }
    return parsed;
  }

  static String parseWhere(String table, String value, Schema schema) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      JobFilter.resolve(null, value, schema);
    } catch (InvalidJobInputException e) {
      throw new InvalidTablePolicyException(table, WHERE, "is invalid: " + e.getMessage(), e);
    }
    return value;
  }

  /**
   * A list of step names as {@code icecompact.steps}, the sweep's {@code --care-steps} and the
   * deployment's {@code SweepCareSteps} take it ({@code none} for none); an unknown or repeated
   * name is an error naming {@code source}.
   */
  public static List<CareStep> parseStepList(String source, String value) {
    try {
      return parseSteps("", value);
    } catch (InvalidTablePolicyException e) {
      throw new InvalidJobInputException(
          source + " " + e.getMessage().replaceFirst("^.*?'" + STEPS + "' ", ""));
    }
  }

  static List<CareStep> parseSteps(String table, String value) {
    String trimmed = value.trim();
    if (trimmed.equalsIgnoreCase("none")) {
      return List.of();
    }
    Set<CareStep> steps = new LinkedHashSet<>();
    for (String part : trimmed.split(",")) {
      String name = part.trim().toLowerCase(Locale.ROOT);
      CareStep step =
          CareStep.byName(name)
              .orElseThrow(
                  () ->
                      new InvalidTablePolicyException(
                          table,
                          STEPS,
                          "names an unknown step '"
                              + part.trim()
                              + "'; steps: "
                              + CareStep.names()
                              + ", or none"));
      if (!steps.add(step)) {
        throw new InvalidTablePolicyException(table, STEPS, "names '" + name + "' twice");
      }
    }
    return List.copyOf(steps);
  }
}
