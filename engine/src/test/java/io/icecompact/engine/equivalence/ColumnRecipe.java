package io.icecompact.engine.equivalence;

/**
 * One generated column.
 *
 * @param kind its type
 * @param present whether the table has it at all (shrinking drops columns by turning this off)
 * @param lowCardinality values from a palette of four (dictionary pages) or fresh each row (plain
 *     pages once the small dictionary budget of the table is spent)
 * @param nullPercent share of nulls; 0 makes the column required
 */
record ColumnRecipe(ColumnKind kind, boolean present, boolean lowCardinality, int nullPercent) {
  boolean optional() {
    return nullPercent > 0;
  }

  @Override
  public String toString() {
    return kind
        + (lowCardinality ? "/dict" : "/plain")
        + (optional() ? "/null" + nullPercent + "%" : "");
  }
}
