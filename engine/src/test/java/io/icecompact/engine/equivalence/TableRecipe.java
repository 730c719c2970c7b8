package io.icecompact.engine.equivalence;

import java.util.List;

/**
 * Everything a random table is built from; the same recipe always builds the same rows and deletes.
 *
 * @param formatVersion 2 (position delete files) or 3 (deletion vectors, row lineage)
 * @param columns the generated columns, besides {@code id} and {@code part}
 * @param files data files written before the deletes (a re-insert file may follow)
 * @param rowsPerFile rows in each of them
 * @param partitioned two identity partitions on {@code part}, or one unpartitioned table
 * @param positionDeletes delete rows by position (v2: one delete file per partition covering
 *     several data files; v3: deletion vectors sharing a Puffin file)
 * @param equalityDeletes delete ids by equality, then re-insert some of them in a later file
 * @param maxGroupFiles at most this many files a group: fewer than a partition has makes partial
 *     groups
 * @param smallPages tiny page, dictionary and row-group budgets: many pages and row groups a file,
 *     and dictionaries that fall back to plain encoding
 * @param compactFirst (v3) compact once before the last files and deletes, so inputs mix stored and
 *     inherited row lineage
 * @param seed the values
 */
record TableRecipe(
    int formatVersion,
    List<ColumnRecipe> columns,
    int files,
    int rowsPerFile,
    boolean partitioned,
    boolean positionDeletes,
    boolean equalityDeletes,
    int maxGroupFiles,
    boolean smallPages,
    boolean compactFirst,
    long seed) {

  List<ColumnRecipe> presentColumns() {
    return columns.stream().filter(ColumnRecipe::present).toList();
  }

  @Override
  public String toString() {
    return String.format(
        "v%d %s, %d files x %d rows, %s%s%s, groups of <= %d files%s%s, seed %d, columns %s",
        formatVersion,
        partitioned ? "2 partitions" : "unpartitioned",
        files,
        rowsPerFile,
        positionDeletes ? (formatVersion >= 3 ? "DVs" : "position deletes") : "no position deletes",
        equalityDeletes ? " + equality deletes" : "",
        "",
        maxGroupFiles,
        smallPages ? ", small pages" : "",
        compactFirst && formatVersion >= 3 ? ", compacted once before" : "",
        seed,
        presentColumns());
  }
}
