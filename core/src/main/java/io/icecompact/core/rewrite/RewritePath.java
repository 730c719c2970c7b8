package io.icecompact.core.rewrite;

/**
 * Which rewrite path a group took (or is expected to take) and why, as recorded in group results,
 * job results and the plan output.
 *
 * @param name {@link #COLUMNAR} or {@link #GENERIC}
 * @param reason why: for the generic path, what made the group ineligible for the columnar one
 */
public record RewritePath(String name, String reason) {
  /**
   * Column-by-column copy of Parquet values and pages, no row objects (worker package {@code
   * columnar}).
   */
  public static final String COLUMNAR = "columnar";

  /**
   * Iceberg's generic records and delete filter: handles every table, at a fraction of the speed.
   */
  public static final String GENERIC = "generic";

  /**
   * ORC files merged by copying their stripes whole, no value decoded (worker package {@code orc}).
   */
  public static final String ORC_STRIPES = "orc-stripes";

  public static RewritePath columnar(String reason) {
    return new RewritePath(COLUMNAR, reason);
  }

  public static RewritePath generic(String reason) {
    return new RewritePath(GENERIC, reason);
  }

  public boolean isColumnar() {
    return COLUMNAR.equals(name);
  }
}
