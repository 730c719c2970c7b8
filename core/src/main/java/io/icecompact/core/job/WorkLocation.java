package io.icecompact.core.job;

import io.icecompact.core.error.OutsideDeploymentScopeException;
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
    return new WorkLocation(root(base, tableLocation, table) + "/" + jobId);
  }

  /**
   * The folder of every job's work location for {@code table}: {@code <base>/<table>}, or {@code
   * <table location>/_icecompact} when the jobs name no base.
   */
  public static String root(String base, String tableLocation, String table) {
    return base == null || base.isBlank()
        ? stripSlash(tableLocation) + "/" + DEFAULT_FOLDER
        : stripSlash(base) + "/" + table.toLowerCase(Locale.ROOT);
  }

  /**
   * Refuses a work location that {@link #of} could not have given a job of {@code table}: a stage
   * invoked directly may be handed any location of the deployment, and it writes (and care deletes)
   * under the one it gets. The job directory is {@code <root>/<jobId>}, its root either {@code
   * <tableLocation>/_icecompact} or a base's {@code .../<table>}.
   *
   * @param tableLocation the table's location; null when the stage has not loaded the table (then
   *     any {@code .../_icecompact} root is taken)
   * @param jobId the job's id; null when the stage does not know it (any last segment is taken)
   */
  public static void requireJobDirectory(
      String jobDirectory, String tableLocation, String table, String jobId) {
    String directory = stripSlash(jobDirectory);
    int slash = directory.lastIndexOf('/');
    String parent = slash < 0 ? "" : directory.substring(0, slash);
    String last = directory.substring(slash + 1);
    boolean underDefault =
        tableLocation == null
            ? parent.endsWith("/" + DEFAULT_FOLDER)
            : parent.equals(stripSlash(tableLocation) + "/" + DEFAULT_FOLDER);
    boolean underBase = parent.endsWith("/" + table.toLowerCase(Locale.ROOT));
    boolean job = jobId == null ? !last.isEmpty() && !last.equals("..") : last.equals(jobId);
    if (!job || !(underDefault || underBase)) {
      throw new OutsideDeploymentScopeException(
          String.format(
              "Work location %s is not a job directory of table %s%s (<table location>/%s/<job id>"
                  + " or <work location base>/%s/<job id>): nothing was written",
              jobDirectory,
              table,
              jobId == null ? "" : " for job " + jobId,
              DEFAULT_FOLDER,
              table.toLowerCase(Locale.ROOT)));
    }
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
