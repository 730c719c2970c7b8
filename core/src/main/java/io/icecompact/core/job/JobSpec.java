package io.icecompact.core.job;

import java.util.Map;
import java.util.UUID;

/**
 * What a user asks for: one table, how to reach its catalog, the rewrite options, which files to
 * consider, and where the job may keep its plan and results.
 *
 * @param jobId unique id of the job; generated when absent. Stamped on output file names and
 *     snapshots.
 * @param table table identifier, e.g. {@code analytics.orders}
 * @param catalogProperties Iceberg catalog properties ({@code type} or {@code catalog-impl}, {@code
 *     uri}, {@code warehouse}, {@code io-impl}, ...)
 * @param options rewrite options, see {@code RewriteOptions}
 * @param filter optional filter in Iceberg's JSON expression form ({@code ExpressionParser})
 * @param where optional filter in the readable form, e.g. {@code ordered_at >= '2026-06-01'}
 * @param workLocation optional base location for job artefacts; default under the table location
 * @param action what the job does: a rewrite of data files (the default, when null) or a conversion
 *     of equality deletes ({@link JobAction})
 */
public record JobSpec(
    String jobId,
    String table,
    Map<String, String> catalogProperties,
    Map<String, String> options,
    String filter,
    String where,
    String workLocation,
    JobAction action) {

  public JobSpec {
    catalogProperties = catalogProperties == null ? Map.of() : Map.copyOf(catalogProperties);
    options = options == null ? Map.of() : Map.copyOf(options);
  }

  /** A rewrite of data files (the default action). */
  public JobSpec(
      String jobId,
      String table,
      Map<String, String> catalogProperties,
      Map<String, String> options,
      String filter,
      String where,
      String workLocation) {
    this(jobId, table, catalogProperties, options, filter, where, workLocation, null);
  }

  /** The action, the default (a rewrite) when none was given. */
  public JobAction jobAction() {
    return JobAction.orDefault(action);
  }

  /** The same spec doing {@code action}. */
  public JobSpec withAction(JobAction action) {
    return new JobSpec(
        jobId, table, catalogProperties, options, filter, where, workLocation, action);
  }

  /** The same spec reaching its table through {@code catalogProperties}. */
  public JobSpec withCatalogProperties(Map<String, String> catalogProperties) {
    return new JobSpec(
        jobId, table, catalogProperties, options, filter, where, workLocation, action);
  }

  /** The same spec with a fresh job id when none was given. */
  public JobSpec withJobIdIfAbsent() {
    if (jobId != null && !jobId.isBlank()) {
      return this;
    }
    return new JobSpec(
        newJobId(), table, catalogProperties, options, filter, where, workLocation, action);
  }

  /** Short enough for file names, unique enough for a table's history. */
  public static String newJobId() {
    return "job-" + UUID.randomUUID().toString().substring(0, 13).replace("-", "");
  }
}
