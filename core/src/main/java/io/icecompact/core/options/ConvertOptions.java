package io.icecompact.core.options;

import io.icecompact.core.error.InvalidJobInputException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of a {@code convert-equality-deletes} job: how its data files are grouped, how many
 * groups one job takes, and whether it commits when some group failed. The names are the rewrite's
 * ({@link RewriteOptions}), so a user's habits carry over; a rewrite-only option (a target size, a
 * sort order, thresholds on small files) is refused rather than ignored, since a conversion writes
 * no data file.
 */
public final class ConvertOptions {
  /**
   * Files per group by default. Each file costs a footer read and the reads of its key columns'
   * chunks, a few small requests (500 files: ~1,500 GETs, four at a time, well inside a Lambda
   * worker's time); each group also reads all the equality deletes of its partition, so a partition
   * split into more groups reads them more times.
   */
  public static final int DEFAULT_MAX_FILE_GROUP_INPUT_FILES = 500;

  /** Data bytes per group by default: Iceberg's default group size, of which only keys are read. */
  public static final long DEFAULT_MAX_FILE_GROUP_SIZE_BYTES = 100L * 1024 * 1024 * 1024;

  private static final Set<String> NAMES =
      Set.of(
          RewriteOptions.MAX_FILE_GROUP_SIZE_BYTES,
          RewriteOptions.MAX_FILE_GROUP_INPUT_FILES,
          RewriteOptions.MAX_GROUPS_PER_JOB,
          RewriteOptions.ALLOW_PARTIAL);

  private final RewriteOptions options;

  private ConvertOptions(RewriteOptions options) {
    this.options = options;
  }

  /**
   * The options of {@code options} a conversion takes: what the fleet passes to a conversion it
   * chose for a table whose policy holds rewrite options (a person who asks for a conversion with a
   * rewrite option is told it does not apply, by {@link #parse}).
   */
  public static Map<String, String> applicable(Map<String, String> options) {
    Map<String, String> kept = new java.util.TreeMap<>();
    if (options != null) {
      options.forEach(
          (name, value) -> {
            if (NAMES.contains(name)) {
              kept.put(name, value);
            }
          });
    }
    return kept;
  }

  /** Checks names and values; fails naming the first option a conversion does not take. */
  public static ConvertOptions parse(Map<String, String> given) {
    RewriteOptions options = RewriteOptions.parse(given);
    for (String name : options.asMap().keySet()) {
      if (!NAMES.contains(name)) {
        throw new InvalidJobInputException(
            String.format(
                "Option '%s' does not apply to convert-equality-deletes, which rewrites no data"
                    + " file. Its options: %s",
                name, String.join(", ", new TreeSet<>(NAMES))));
      }
    }
    ConvertOptions parsed = new ConvertOptions(options);
    if (parsed.maxFileGroupInputFiles() < 1 || parsed.maxFileGroupSizeBytes() < 1) {
      throw new InvalidJobInputException(
          String.format(
              "'%s' and '%s' must be positive",
              RewriteOptions.MAX_FILE_GROUP_INPUT_FILES, RewriteOptions.MAX_FILE_GROUP_SIZE_BYTES));
    }
    return parsed;
  }

  public Map<String, String> asMap() {
    return options.asMap();
  }

  public int maxFileGroupInputFiles() {
    String value = options.asMap().get(RewriteOptions.MAX_FILE_GROUP_INPUT_FILES);
    return value == null
        ? DEFAULT_MAX_FILE_GROUP_INPUT_FILES
        : (int) Math.min(Integer.MAX_VALUE, Long.parseLong(value.trim()));
  }

  public long maxFileGroupSizeBytes() {
    String value = options.asMap().get(RewriteOptions.MAX_FILE_GROUP_SIZE_BYTES);
    return value == null ? DEFAULT_MAX_FILE_GROUP_SIZE_BYTES : Long.parseLong(value.trim());
  }

  public int maxGroupsPerJob() {
    return options.maxGroupsPerJob();
  }

  public boolean allowPartial() {
    return options.allowPartial();
  }
}
