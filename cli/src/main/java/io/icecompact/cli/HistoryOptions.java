package io.icecompact.cli;

import io.icecompact.cli.catalog.BoundedGlueClientFactory;
import io.icecompact.cli.flags.KeyValue;
import io.icecompact.cli.history.JobHistory;
import io.icecompact.cli.history.JobLogHistory;
import io.icecompact.cli.history.WorkLocationHistory;
import io.icecompact.core.table.TableAccess;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * The flags that say whose jobs to read and where, shared by {@code history} and {@code status}:
 * the deployed job log ({@code --lease-table}) or, without it, the jobs' work locations through the
 * catalog ({@code -c}).
 */
public final class HistoryOptions {
  @Option(
      names = "--table",
      required = true,
      paramLabel = "NS.TABLE",
      description = "Table identifier as the jobs named it, e.g. analytics.orders")
  String table;

  @Option(
      names = {"-c", "--catalog-property"},
      paramLabel = "KEY=VALUE",
      converter = KeyValue.Converter.class,
      description =
          "Iceberg catalog property, to read the jobs' work locations (and, with --lease-table, whole results); repeatable")
  List<KeyValue> catalogProperties = new ArrayList<>();

  @Option(
      names = "--work-location",
      paramLabel = "URI",
      description =
          "The base the jobs were given with --work-location (default: <table location>/_icecompact)")
  String workLocation;

  @Option(
      names = "--lease-table",
      paramLabel = "NAME",
      description =
          "Read the deployed pipeline's job log in this DynamoDB table (credentials and region: the AWS default chain)")
  String leaseTable;

  @Option(
      names = "--dynamodb-endpoint",
      paramLabel = "URI",
      description =
          "DynamoDB endpoint for --lease-table, e.g. a VPC endpoint or a local stand-in (default: the region's)")
  URI dynamodbEndpoint;

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  String table() {
    return table;
  }

  /** The history the flags name; a combination that names none, or two, is a bad flag. */
  JobHistory open() {
    Map<String, String> catalog = catalog();
    if (leaseTable == null) {
      if (dynamodbEndpoint != null) {
        throw usage("--dynamodb-endpoint needs --lease-table");
      }
      if (catalog.isEmpty()) {
        throw usage(
            "Give --lease-table NAME (the deployed job log) or the catalog with -c (the jobs' work locations)");
      }
      return new WorkLocationHistory(new TableAccess(catalog), workLocation);
    }
    if (leaseTable.isBlank()) {
      throw usage("Invalid value for option '--lease-table': a DynamoDB table name is needed");
    }
    if (workLocation != null) {
      throw usage(
          "--work-location reads the jobs' work locations; the job log (--lease-table) names each job's result");
    }
    return new JobLogHistory(
        dynamo(), leaseTable, catalog.isEmpty() ? null : new TableAccess(catalog));
  }

  private DynamoDbClient dynamo() {
    DynamoDbClientBuilder builder =
        DynamoDbClient.builder().httpClient(UrlConnectionHttpClient.create());
    if (dynamodbEndpoint != null) {
      builder.endpointOverride(dynamodbEndpoint);
    }
    try {
      return builder.build();
    } catch (SdkClientException e) {
      throw new IllegalStateException(
          "Cannot reach the job log in DynamoDB table "
              + leaseTable
              + ": "
              + e.getMessage()
              + " (set AWS_REGION, or a region in the AWS profile)",
          e);
    }
  }

  private Map<String, String> catalog() {
    try {
      return catalogProperties.isEmpty()
          ? Map.of()
          : BoundedGlueClientFactory.withBoundedGlue(KeyValue.toMap(catalogProperties));
    } catch (IllegalArgumentException e) {
      throw usage("Invalid value for option '--catalog-property': " + e.getMessage());
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
