package io.icecompact.planner;

import io.icecompact.core.options.RewriteOptions;
import java.util.Map;
import org.apache.iceberg.actions.SizeBasedFileRewritePlanner;

/**
 * The data file sizes Iceberg's bin-pack planner leaves alone by size: {@code min-file-size-bytes}
 * to {@code max-file-size-bytes}, by default 75% to 180% of the target. Iceberg keeps its own copy
 * private; this one serves the places that explain or second-guess its choices.
 *
 * @param min the smallest size not picked as too small
 * @param max the largest size not picked as too large
 */
public record FileSizeRange(long min, long max) {

  /** The range under {@code options} (rewrite options by name) for {@code target} bytes. */
  public static FileSizeRange of(Map<String, String> options, long target) {
    return new FileSizeRange(
        option(
            options,
            RewriteOptions.MIN_FILE_SIZE_BYTES,
            (long) (target * SizeBasedFileRewritePlanner.MIN_FILE_SIZE_DEFAULT_RATIO)),
        option(
            options,
            RewriteOptions.MAX_FILE_SIZE_BYTES,
            (long) (target * SizeBasedFileRewritePlanner.MAX_FILE_SIZE_DEFAULT_RATIO)));
  }

  /** Whether the planner would leave a file of {@code length} bytes alone by its size. */
  public boolean contains(long length) {
    return length >= min && length <= max;
  }

  private static long option(Map<String, String> options, String name, long otherwise) {
    String value = options.get(name);
    return value == null ? otherwise : Long.parseLong(value.trim());
  }
}
