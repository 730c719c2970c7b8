package io.icecompact.core.job;

import java.util.Locale;

/**
 * Where one job keeps its artefacts: the plan index and one document per group, one result per
 * group, commit intents and the final result. Outside the table's {@code data/} and {@code
 * metadata/} folders so that nothing here is ever mistaken for table content.
 */
public record WorkLocation(String jobDirectory) {
  /** Default base when the job names none: a sibling of the table's data and metadata folders. */
  public static final String DEFAULT_FOLDER = "_icecompact";

  public static WorkLocation of(String base, String tableLocation, String table, String jobId) {
    String root =
        base == null || base.isBlank()
            ? stripSlash(tableLocation) + "/" + DEFAULT_FOLDER
            : stripSlash(base) + "/" + table.toLowerCase(Locale.ROOT);
    return new WorkLocation(root + "/" + jobId);
  }

  public String plan() {
    return jobDirectory + "/plan.json";
  }

  /**
   * Group {@code groupIndex}'s scan tasks ({@link GroupPlanDocument}), checked by the index's
   * digest.
   */
  public String groupPlan(int groupIndex) {
    return String.format("%s/plan/group-%05d.json", jobDirectory, groupIndex);
  }

  public String groupResult(int groupIndex) {
    return String.format("%s/results/group-%05d.json", jobDirectory, groupIndex);
  }

  /** What a worker converted for one group of a {@code convert-equality-deletes} job. */
  public String convertedGroup(int groupIndex) {
    return String.format("%s/results/group-%05d.converted.json", jobDirectory, groupIndex);
  }

  /**
   * How many data files of the pinned snapshot each equality delete file applies to ({@link
   * EqualityDeleteScope}): a convert job's committer retires a delete only when it converted them
   * all.
   */
  public String equalityDeleteScope() {
    return jobDirectory + "/plan/equality-delete-scope.json";
  }

  /**
   * Where a group's failure is recorded when its worker gave up (the Map state's Catch, or the
   * embedded runner).
   */
  public String groupFailure(int groupIndex) {
    return String.format("%s/results/group-%05d.failed.json", jobDirectory, groupIndex);
  }

  /** Marks that attempt {@code attempt} of a group started (see {@code JobStore#claimAttempt}). */
  public String attemptMarker(int groupIndex, int attempt) {
    return String.format("%s/attempts/group-%05d.attempt-%d", jobDirectory, groupIndex, attempt);
  }

  /**
   * Where attempt {@code attempt} of a group records an output file before creating it: one entry
   * per file, named {@code output-<file name>} (never the data file's own name) and holding its
   * location (see {@code JobStore#recordOutput}).
   */
  public String outputEntry(int groupIndex, int attempt, String fileName) {
    return String.format(
        "%s/outputs/group-%05d.attempt-%d/output-%s", jobDirectory, groupIndex, attempt, fileName);
  }

  /** The folder of every attempt's output entries. */
  public String outputEntries() {
    return jobDirectory + "/outputs/";
  }

  public String commitIntent(int commitIndex) {
    return String.format("%s/commits/commit-%03d.json", jobDirectory, commitIndex);
  }

  public String jobResult() {
    return jobDirectory + "/result.json";
  }

  /** What the care steps after the job's commit did, each step's whole report. */
  public String careResult() {
    return jobDirectory + "/care.json";
  }

  private static String stripSlash(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }
}
