package io.icecompact.cli;

import io.icecompact.cli.catalog.BoundedGlueClientFactory;
import io.icecompact.cli.flags.JobId;
import io.icecompact.cli.flags.KeyValue;
import io.icecompact.core.job.JobSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The flags that describe a job, shared by {@code compact} and {@code plan}. */
public final class JobOptions {
  @Option(
      names = "--table",
      required = true,
      paramLabel = "NS.TABLE",
      description = "Table identifier, e.g. analytics.orders")
  String table;

  @Option(
      names = {"-c", "--catalog-property"},
      paramLabel = "KEY=VALUE",
      converter = KeyValue.Converter.class,
      description =
          "Iceberg catalog property (type or catalog-impl, uri, warehouse, io-impl, ...); repeatable")
  List<KeyValue> catalogProperties = new ArrayList<>();

  @Option(
      names = {"-o", "--option"},
      paramLabel = "KEY=VALUE",
      converter = KeyValue.Converter.class,
      description = "Rewrite option with Iceberg's name, e.g. min-input-files=5; repeatable")
  List<KeyValue> options = new ArrayList<>();

  @Option(
      names = "--where",
      paramLabel = "FILTER",
      description =
          "Only files that may hold matching rows, e.g. \"ordered_at >= '2026-06-01' and region = 'eu'\"")
  String where;

  @Option(
      names = "--filter-json",
      paramLabel = "JSON",
      description = "The filter as an Iceberg JSON expression")
  String filterJson;

  @Option(
      names = "--work-location",
      paramLabel = "URI",
      description = "Where job artefacts go (default: <table location>/_icecompact)")
  String workLocation;

  @Option(
      names = "--job-id",
      paramLabel = "ID",
      converter = JobId.class,
      description = "Job id: letters, digits, '.', '_', '-', at most 64 (default: generated)")
  String jobId;

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /**
   * As given; a Glue catalog's calls are bounded in time (see {@link BoundedGlueClientFactory}).
   */
  Map<String, String> catalogProperties() {
    return BoundedGlueClientFactory.withBoundedGlue(map("--catalog-property", catalogProperties));
  }

  JobSpec toSpec() {
    return new JobSpec(
        jobId,
        table,
        catalogProperties(),
        map("--option", options),
        filterJson,
        where,
        workLocation);
  }

  /** A key given twice with different values is a usage error, as a malformed pair is. */
  private Map<String, String> map(String flag, List<KeyValue> pairs) {
    try {
      return KeyValue.toMap(pairs);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          command.commandLine(), "Invalid value for option '" + flag + "': " + e.getMessage());
    }
  }
}
