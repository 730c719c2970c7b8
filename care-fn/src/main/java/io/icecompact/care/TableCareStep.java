package io.icecompact.care;

import org.apache.iceberg.Table;

/**
 * One table-care step: runs on a loaded table and returns what it removed, read back from the
 * table's metadata and storage. Steps are plain classes, free of CLI and Lambda concerns, so the
 * embedded sweep and a Lambda handler run the same code; {@link #name} is how a policy lists them
 * ({@link io.icecompact.core.policy.CareStep}).
 *
 * @param <R> the step's report
 */
public interface TableCareStep<R extends CareReport> {
  /** The step's name in a table's policy, e.g. {@code expire-snapshots}. */
  String name();

  R run(Table table);

  /**
   * What {@link #run} would do to the table now, decided the same way, committing and deleting
   * nothing ({@code sweep --dry-run}, {@code health --care}): a user sees what a step removes
   * before opting in.
   */
  R preview(Table table);
}
