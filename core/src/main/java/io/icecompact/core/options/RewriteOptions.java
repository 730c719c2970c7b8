package io.icecompact.core.options;

import io.icecompact.core.error.InvalidJobInputException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.SizeBasedFileRewritePlanner;
import org.apache.iceberg.util.ZOrderByteUtils;

/**
 * The rewrite options of a job: Iceberg's planner options under Iceberg's names, plus the options
 * that Iceberg implements only inside its Spark action and icecompact implements itself.
 *
 * <p>Iceberg's {@code init()} silently accepts unknown keys, so a typo such as {@code
 * min-input-file} would quietly run with the default. Here every key is checked against {@link
 * #validOptionNames()} and every value of ours against its rule; Iceberg checks the values of its
 * own options when planning.
 */
public final class RewriteOptions {
  // Iceberg planner options, by Iceberg's constants so a rename upstream breaks the build.
  public static final String TARGET_FILE_SIZE_BYTES =
      SizeBasedFileRewritePlanner.TARGET_FILE_SIZE_BYTES;
  public static final String MIN_FILE_SIZE_BYTES = SizeBasedFileRewritePlanner.MIN_FILE_SIZE_BYTES;
  public static final String MAX_FILE_SIZE_BYTES = SizeBasedFileRewritePlanner.MAX_FILE_SIZE_BYTES;
  public static final String MIN_INPUT_FILES = SizeBasedFileRewritePlanner.MIN_INPUT_FILES;
  public static final String REWRITE_ALL = SizeBasedFileRewritePlanner.REWRITE_ALL;
  public static final String MAX_FILE_GROUP_SIZE_BYTES =
      SizeBasedFileRewritePlanner.MAX_FILE_GROUP_SIZE_BYTES;
  public static final String MAX_FILE_GROUP_INPUT_FILES =
      SizeBasedFileRewritePlanner.MAX_FILE_GROUP_INPUT_FILES;
  public static final String MAX_FILES_TO_REWRITE = BinPackRewriteFilePlanner.MAX_FILES_TO_REWRITE;
  public static final String DELETE_FILE_THRESHOLD =
      BinPackRewriteFilePlanner.DELETE_FILE_THRESHOLD;
  public static final String DELETE_RATIO_THRESHOLD =
      BinPackRewriteFilePlanner.DELETE_RATIO_THRESHOLD;
  public static final String REWRITE_JOB_ORDER = RewriteDataFiles.REWRITE_JOB_ORDER;
  public static final String OUTPUT_SPEC_ID = RewriteDataFiles.OUTPUT_SPEC_ID;

  /**
   * One worker is one Lambda invocation: at most 15 minutes, 10 GB of memory and /tmp. The generic
   * rewrite path runs at about 10 MB/s per thread, so 2 GiB takes ~3.5 minutes, leaving room for
   * slow object storage before the timeout. Spark's default (100 GB) assumes a cluster.
   */
  public static final long MAX_FILE_GROUP_SIZE_BYTES_DEFAULT = 2L * 1024 * 1024 * 1024;

  // Options Iceberg implements only in its Spark action; same names and defaults as Spark's.
  public static final String PARTIAL_PROGRESS_ENABLED = RewriteDataFiles.PARTIAL_PROGRESS_ENABLED;
  public static final boolean PARTIAL_PROGRESS_ENABLED_DEFAULT =
      RewriteDataFiles.PARTIAL_PROGRESS_ENABLED_DEFAULT;
  public static final String PARTIAL_PROGRESS_MAX_COMMITS =
      RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS;
  public static final int PARTIAL_PROGRESS_MAX_COMMITS_DEFAULT =
      RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS_DEFAULT;

  /**
   * The largest {@code partial-progress.max-commits} (Spark has none): the job result Step
   * Functions carries lists every committed snapshot's id (about 21 bytes each), and a state
   * payload may not exceed 256 KiB. 1,000 ids take about 21 KB.
   */
  public static final int PARTIAL_PROGRESS_MAX_COMMITS_LIMIT = 1000;

  public static final String USE_STARTING_SEQUENCE_NUMBER =
      RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER;
  public static final boolean USE_STARTING_SEQUENCE_NUMBER_DEFAULT =
      RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER_DEFAULT;

  // icecompact's own options.
  /** Groups beyond this many are left for the next run and reported as skipped. */
  public static final String MAX_GROUPS_PER_JOB = "max-groups-per-job";

  /**
   * Bounds the planner's summary and the Step Functions Map input (one small item per group) and
   * the number of results the committer reads.
   */
  public static final int MAX_GROUPS_PER_JOB_DEFAULT = 1000;

  /**
   * The largest {@code max-groups-per-job}: the Map state's items are the group indexes in the
   * planner's output, one small number per group (about 5 bytes), and Step Functions refuses a
   * state payload, and a Distributed Map's items read from its input, over 256 KiB. 10,000 groups
   * keep both under 64 KiB.
   */
  public static final int MAX_GROUPS_PER_JOB_LIMIT = 10_000;

  /** When false, one failed or conflicted group means nothing is committed. */
  public static final String ALLOW_PARTIAL = "allow-partial";

  public static final boolean ALLOW_PARTIAL_DEFAULT = true;

  // Spark's rewrite_data_files takes these as procedure arguments (strategy, sort_order); here they
  // are
  // options, kebab-cased like the rest.
  /**
   * {@code binpack} or {@code sort}; default binpack, or sort when {@link #SORT_ORDER} is set (as
   * Spark).
   */
  public static final String STRATEGY = "strategy";

  /**
   * The order of {@code strategy=sort} in Spark's syntax ({@link SortOrderText}); default the
   * table's.
   */
  public static final String SORT_ORDER = "sort-order";

  // Spark's z-order options (SparkZOrderFileRewriteRunner), with its names and defaults.
  /** Bytes a string or binary column contributes to a z-value. */
  public static final String VAR_LENGTH_CONTRIBUTION = "var-length-contribution";

  public static final int VAR_LENGTH_CONTRIBUTION_DEFAULT = ZOrderByteUtils.PRIMITIVE_BUFFER_SIZE;

  /** The most bytes of a z-value (the interleaved bits beyond are not compared). */
  public static final String MAX_OUTPUT_SIZE = "max-output-size";

  public static final int MAX_OUTPUT_SIZE_DEFAULT = Integer.MAX_VALUE;

  private static final Set<String> ICEBERG_PLANNER_OPTIONS =
      Set.of(
          TARGET_FILE_SIZE_BYTES,
          MIN_FILE_SIZE_BYTES,
          MAX_FILE_SIZE_BYTES,
          MIN_INPUT_FILES,
          REWRITE_ALL,
          MAX_FILE_GROUP_SIZE_BYTES,
          MAX_FILE_GROUP_INPUT_FILES,
          MAX_FILES_TO_REWRITE,
          DELETE_FILE_THRESHOLD,
          DELETE_RATIO_THRESHOLD,
          REWRITE_JOB_ORDER,
          OUTPUT_SPEC_ID);

  private static final Set<String> OWN_OPTIONS =
      Set.of(
          PARTIAL_PROGRESS_ENABLED,
          PARTIAL_PROGRESS_MAX_COMMITS,
          USE_STARTING_SEQUENCE_NUMBER,
          MAX_GROUPS_PER_JOB,
          ALLOW_PARTIAL,
          STRATEGY,
          SORT_ORDER,
          VAR_LENGTH_CONTRIBUTION,
          MAX_OUTPUT_SIZE);

  /**
   * Iceberg's options whose values Iceberg parses with {@code Long.parseLong} (failing with only
   * "For input string") or, for {@code rewrite-all}, with {@code Boolean.parseBoolean}, which reads
   * any word but "true" as false: their form is checked here, their ranges by Iceberg.
   */
  private static final Set<String> WHOLE_NUMBER_OPTIONS =
      Set.of(
          TARGET_FILE_SIZE_BYTES,
          MIN_FILE_SIZE_BYTES,
          MAX_FILE_SIZE_BYTES,
          MIN_INPUT_FILES,
          MAX_FILE_GROUP_SIZE_BYTES,
          MAX_FILE_GROUP_INPUT_FILES,
          MAX_FILES_TO_REWRITE,
          DELETE_FILE_THRESHOLD,
          OUTPUT_SPEC_ID);

  private final Map<String, String> given;
  private final boolean partialProgressEnabled;
  private final int partialProgressMaxCommits;
  private final boolean useStartingSequenceNumber;
  private final int maxGroupsPerJob;
  private final boolean allowPartial;
  private final RewriteStrategy strategy;
  private final RequestedSortOrder requestedSortOrder;
  private final int varLengthContribution;
  private final int maxOutputSize;

  private RewriteOptions(Map<String, String> given) {
    this.given = Collections.unmodifiableMap(new LinkedHashMap<>(given));
    this.partialProgressEnabled =
        booleanOption(PARTIAL_PROGRESS_ENABLED, PARTIAL_PROGRESS_ENABLED_DEFAULT);
    this.partialProgressMaxCommits =
        positiveInt(PARTIAL_PROGRESS_MAX_COMMITS, PARTIAL_PROGRESS_MAX_COMMITS_DEFAULT);
    if (partialProgressMaxCommits > PARTIAL_PROGRESS_MAX_COMMITS_LIMIT) {
      throw new InvalidJobInputException(
          String.format(
              "'%s' is set to %d but must be at most %d: the job result, which Step Functions carries, lists"
                  + " every committed snapshot, and Step Functions refuses a state payload over 256 KiB",
              PARTIAL_PROGRESS_MAX_COMMITS,
              partialProgressMaxCommits,
              PARTIAL_PROGRESS_MAX_COMMITS_LIMIT));
    }
    this.useStartingSequenceNumber =
        booleanOption(USE_STARTING_SEQUENCE_NUMBER, USE_STARTING_SEQUENCE_NUMBER_DEFAULT);
    this.maxGroupsPerJob = positiveInt(MAX_GROUPS_PER_JOB, MAX_GROUPS_PER_JOB_DEFAULT);
    if (maxGroupsPerJob > MAX_GROUPS_PER_JOB_LIMIT) {
      throw new InvalidJobInputException(
          String.format(
              "'%s' is set to %d but must be at most %d: the Step Functions Map's items are the job's group"
                  + " indexes, and Step Functions refuses a state payload over 256 KiB. A larger table is"
                  + " compacted over several runs (the skipped groups are left for the next one)",
              MAX_GROUPS_PER_JOB, maxGroupsPerJob, MAX_GROUPS_PER_JOB_LIMIT));
    }
    this.allowPartial = booleanOption(ALLOW_PARTIAL, ALLOW_PARTIAL_DEFAULT);
    String sortOrder = given.get(SORT_ORDER);
    this.requestedSortOrder = sortOrder == null ? null : SortOrderText.parse(sortOrder);
    String strategyValue = given.get(STRATEGY);
    this.strategy =
        strategyValue != null
            ? RewriteStrategy.parse(strategyValue)
            : sortOrder != null ? RewriteStrategy.SORT : RewriteStrategy.BINPACK;
    if (strategy == RewriteStrategy.BINPACK && sortOrder != null) {
      // Spark refuses the pair too ("Must use only one rewriter type")
      throw new InvalidJobInputException(
          String.format(
              "'%s' is set to %s but '%s' is binpack, which keeps rows in input order: set %s=sort or"
                  + " leave '%s' out",
              SORT_ORDER, sortOrder, STRATEGY, STRATEGY, STRATEGY));
    }
    this.varLengthContribution =
        positiveInt(VAR_LENGTH_CONTRIBUTION, VAR_LENGTH_CONTRIBUTION_DEFAULT);
    this.maxOutputSize = positiveInt(MAX_OUTPUT_SIZE, MAX_OUTPUT_SIZE_DEFAULT);
    for (String zOrderOption : new String[] {VAR_LENGTH_CONTRIBUTION, MAX_OUTPUT_SIZE}) {
      if (given.containsKey(zOrderOption)
          && !(requestedSortOrder instanceof RequestedSortOrder.ZOrder)) {
        // Spark refuses them too: only its z-order runner lists them
        throw new InvalidJobInputException(
            String.format(
                "'%s' applies to a z-order only, but '%s' is %s",
                zOrderOption, SORT_ORDER, sortOrder == null ? "not set" : "set to " + sortOrder));
      }
    }
  }

  /** Checks names and the values of icecompact's own options; fails naming the first bad one. */
  public static RewriteOptions parse(Map<String, String> options) {
    Map<String, String> given = options == null ? Map.of() : options;
    for (Map.Entry<String, String> option : given.entrySet()) {
      if (!validOptionNames().contains(option.getKey())) {
        throw new InvalidJobInputException(
            String.format(
                "Unknown rewrite option '%s'%s. Valid options: %s",
                option.getKey(),
                closest(option.getKey()).map(name -> " (did you mean '" + name + "'?)").orElse(""),
                String.join(", ", validOptionNames())));
      }
      if (option.getValue() == null || option.getValue().isBlank()) {
        throw new InvalidJobInputException(
            String.format("Rewrite option '%s' has no value", option.getKey()));
      }
      checkIcebergValueForm(option.getKey(), option.getValue());
    }
    return new RewriteOptions(given);
  }

  private static void checkIcebergValueForm(String name, String value) {
    if (WHOLE_NUMBER_OPTIONS.contains(name)) {
      try {
        Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new InvalidJobInputException(
            String.format(
                "'%s' is set to %s but must be a whole number%s",
                name, value, name.endsWith("-bytes") ? " of bytes" : ""));
      }
    } else if (REWRITE_ALL.equals(name)
        && !value.equalsIgnoreCase("true")
        && !value.equalsIgnoreCase("false")) {
      throw new InvalidJobInputException(
          String.format("'%s' is set to %s but must be true or false", name, value));
    } else if (DELETE_RATIO_THRESHOLD.equals(name)) {
      try {
        Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new InvalidJobInputException(
            String.format("'%s' is set to %s but must be a number from 0 to 1", name, value));
      }
    }
  }

  /** The valid name within two edits of a typo, if there is one. */
  private static java.util.Optional<String> closest(String typo) {
    return validOptionNames().stream()
        .filter(name -> editDistance(name, typo) <= 2)
        .min(java.util.Comparator.comparingInt(name -> editDistance(name, typo)));
  }

  private static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /** Every accepted option name, sorted. */
  public static Set<String> validOptionNames() {
    Set<String> names = new TreeSet<>(ICEBERG_PLANNER_OPTIONS);
    names.addAll(OWN_OPTIONS);
    return Collections.unmodifiableSet(names);
  }

  static Set<String> icebergPlannerOptionNames() {
    return ICEBERG_PLANNER_OPTIONS;
  }

  /** The options as given, for the record of the job. */
  public Map<String, String> asMap() {
    return given;
  }

  /** What Iceberg's planner receives: its own options, with our default group size filled in. */
  public Map<String, String> plannerOptions() {
    Map<String, String> planner = new LinkedHashMap<>();
    planner.put(MAX_FILE_GROUP_SIZE_BYTES, Long.toString(MAX_FILE_GROUP_SIZE_BYTES_DEFAULT));
    given.forEach(
        (name, value) -> {
          if (ICEBERG_PLANNER_OPTIONS.contains(name)) {
            planner.put(name, value);
          }
        });
    return planner;
  }

  public boolean partialProgressEnabled() {
    return partialProgressEnabled;
  }

  public int partialProgressMaxCommits() {
    return partialProgressMaxCommits;
  }

  public boolean useStartingSequenceNumber() {
    return useStartingSequenceNumber;
  }

  public int maxGroupsPerJob() {
    return maxGroupsPerJob;
  }

  public boolean allowPartial() {
    return allowPartial;
  }

  public RewriteStrategy strategy() {
    return strategy;
  }

  public int varLengthContribution() {
    return varLengthContribution;
  }

  public int maxOutputSize() {
    return maxOutputSize;
  }

  /**
   * The {@code sort-order} given, parsed but not yet checked against a table ({@link
   * RowOrderChoice}).
   */
  public java.util.Optional<RequestedSortOrder> requestedSortOrder() {
    return java.util.Optional.ofNullable(requestedSortOrder);
  }

  private boolean booleanOption(String name, boolean defaultValue) {
    String value = given.get(name);
    if (value == null) {
      return defaultValue;
    }
    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      throw new InvalidJobInputException(
          String.format("'%s' is set to %s but must be true or false", name, value));
    }
    return Boolean.parseBoolean(value);
  }

  private int positiveInt(String name, int defaultValue) {
    String value = given.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed <= 0) {
        throw new InvalidJobInputException(
            String.format("'%s' is set to %s but must be > 0", name, value));
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new InvalidJobInputException(
          String.format("'%s' is set to %s but must be an integer > 0", name, value));
    }
  }
}
