package io.icecompact.care;

import java.util.List;

/**
 * What a care step reports, beyond its own figures: one line a person reads in a CLI table or a
 * Step Functions console, and the problems its read-back found (a file deleted that still exists, a
 * commit that removed something not decided). A step with problems counts as failed: its figures
 * are not what the table shows.
 */
public interface CareReport {
  /**
   * One line: what the step found and removed, e.g. {@code expired 20 of 23 snapshots, 40 files
   * deleted}.
   */
  String summary();

  List<String> problems();
}
