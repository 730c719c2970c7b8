package io.icecompact.cli;

import io.icecompact.core.job.JobSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The flags that describe a job, shared by {@code compact} and {@code plan}. */
public final class JobOptions {
  @Option(names = "--table", required = true, paramLabel = "NS.TABLE", description = "Table identifier, e.g. analytics.orders")
  String table;

  @Option(names = {"-c", "--catalog-property"}, paramLabel = "KEY=VALUE",
      description = "Iceberg catalog property (type or catalog-impl, uri, warehouse, io-impl, ...); repeatable")
  Map<String, String> catalogProperties = new LinkedHashMap<>();

  @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE",
      description = "Rewrite option with Iceberg's name, e.g. min-input-files=5; repeatable")
  Map<String, String> options = new LinkedHashMap<>();

  @Option(names = "--where", paramLabel = "FILTER",
      description = "Only files that may hold matching rows, e.g. \"ordered_at >= '2026-06-01' and region = 'eu'\"")
  String where;

  @Option(names = "--filter-json", paramLabel = "JSON", description = "The filter as an Iceberg JSON expression")
  String filterJson;

  @Option(names = "--work-location", paramLabel = "URI",
      description = "Where job artefacts go (default: <table location>/_icecompact)")
  String workLocation;

  @Option(names = "--job-id", description = "Job id (default: generated)")
  String jobId;

  JobSpec toSpec() {
    return new JobSpec(jobId, table, catalogProperties, options, filterJson, where, workLocation);
  }
}
