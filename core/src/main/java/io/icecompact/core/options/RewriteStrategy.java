package io.icecompact.core.options;

import io.icecompact.core.error.InvalidJobInputException;
import java.util.Locale;

/** How a job orders the rows it rewrites: Spark's {@code rewrite_data_files} strategies. */
public enum RewriteStrategy {
  /** Combine files, rows in input order (Iceberg's bin-pack). */
  BINPACK,
  /** Combine files and order each group's rows by a sort order or a z-order. */
  SORT;

  /** The option's value as users write it ({@code binpack}, {@code sort}). */
  public String optionValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Spark's names, in any case; anything else is named in the error with the valid values. */
  public static RewriteStrategy parse(String value) {
    for (RewriteStrategy strategy : values()) {
      if (strategy.optionValue().equalsIgnoreCase(value.trim())) {
        return strategy;
      }
    }
    throw new InvalidJobInputException(
        String.format(
            "'%s' is set to %s but must be binpack or sort", RewriteOptions.STRATEGY, value));
  }
}
