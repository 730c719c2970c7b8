package io.icecompact.infra.cdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import software.amazon.awscdk.services.iam.ManagedPolicy;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.sns.Topic;
import software.constructs.Construct;

/**
 * The sample app's settings: CDK context values ({@code -c name=value} or cdk.json's {@code
 * context}) named like infra/template.yaml's parameters in camelCase, turned into {@link
 * IcebergCompactionProps}.
 */
final class AppContext {
  /**
   * Every context name the app reads, so that a misspelt {@code -c} is an error rather than
   * ignored.
   */
  static final List<String> NAMES =
      Stream.concat(
              Stream.of(
                  "stackName",
                  "repositoryRoot",
                  "warehouseBucket",
                  "warehousePrefix",
                  "catalogType",
                  "catalogPropertiesJson",
                  "glueDatabase",
                  "catalogDynamoDbTable",
                  "catalogAccessPolicyArn",
                  "existingWorkBucket",
                  "workPrefix",
                  "workArtefactRetentionDays",
                  "table",
                  "schedule",
                  "scheduleOptionsJson",
                  "scheduleTimezone",
                  "sweepNamespaces",
                  "sweepSchedule",
                  "sweepMaxTables",
                  "sweepMaxConcurrentTables",
                  "sweepCareSteps",
                  "logRetentionDays",
                  "logLevel",
                  "alarmTopicArn",
                  "unknownOrPartialThreshold",
                  "workerMemorySize",
                  "workerReservedConcurrency",
                  "stateMachineLogLevel",
                  "stateMachineTracing",
                  "staleAfterDays"),
              Stream.of(CompactionFunction.values()).map(AppContext::extraPolicyName))
          .toList();

  /** Lambda log retention in days → CDK's enum (CloudWatch Logs allows these values only). */
  static final Map<Integer, RetentionDays> RETENTION = retention();

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Construct scope;

  AppContext(Construct scope) {
    this.scope = scope;
  }

  String stackName() {
    return get("stackName", "icecompact");
  }

  IcebergCompactionProps props() {
    IcebergCompactionProps.Builder b =
        IcebergCompactionProps.builder()
            .warehouseBucket(
                Bucket.fromBucketName(scope, "WarehouseBucket", required("warehouseBucket")))
            .warehousePrefix(
                get("warehousePrefix", IcebergCompactionProps.DEFAULT_WAREHOUSE_PREFIX))
            .catalog(catalog())
            .workPrefix(get("workPrefix", IcebergCompactionProps.DEFAULT_WORK_PREFIX))
            .workArtefactRetentionDays(
                number(
                    "workArtefactRetentionDays",
                    IcebergCompactionProps.DEFAULT_WORK_ARTEFACT_RETENTION_DAYS))
            .scheduleTimezone(
                get("scheduleTimezone", IcebergCompactionProps.DEFAULT_SCHEDULE_TIMEZONE))
            .sweepNamespaces(sweepNamespaces())
            .sweepSchedule(get("sweepSchedule", IcebergCompactionProps.DEFAULT_SWEEP_SCHEDULE))
            .sweepMaxTables(
                number("sweepMaxTables", IcebergCompactionProps.DEFAULT_SWEEP_MAX_TABLES))
            .sweepMaxConcurrentTables(
                number(
                    "sweepMaxConcurrentTables",
                    IcebergCompactionProps.DEFAULT_SWEEP_MAX_CONCURRENT_TABLES))
            .logRetention(logRetention())
            .logLevel(logLevel())
            .unknownOrPartialThreshold(
                number(
                    "unknownOrPartialThreshold",
                    IcebergCompactionProps.DEFAULT_UNKNOWN_OR_PARTIAL_THRESHOLD))
            .functionSize(
                CompactionFunction.REWRITE_GROUP,
                CompactionFunction.REWRITE_GROUP
                    .defaultSize()
                    .withMemoryMb(
                        number(
                            "workerMemorySize",
                            CompactionFunction.REWRITE_GROUP.defaultSize().memoryMb())))
            .functionCode(FunctionCode.fromBuiltJars(Path.of(get("repositoryRoot", "../.."))));
    if (has("catalogAccessPolicyArn")) {
      b.catalogAccessPolicy(
          ManagedPolicy.fromManagedPolicyArn(
              scope, "CatalogAccessPolicy", get("catalogAccessPolicyArn", null)));
    }
    for (CompactionFunction f : CompactionFunction.values()) {
      if (has(extraPolicyName(f))) {
        b.extraPolicy(
            f,
            ManagedPolicy.fromManagedPolicyArn(
                scope, f.step() + "ExtraPolicy", get(extraPolicyName(f), null)));
      }
    }
    if (has("sweepCareSteps")) {
      b.sweepCareSteps(sweepCareSteps());
    }
    if (has("stateMachineLogLevel")) {
      String level = get("stateMachineLogLevel", null).toUpperCase(Locale.ROOT);
      try {
        b.stateMachineLogLevel(
            software.amazon.awscdk.services.stepfunctions.LogLevel.valueOf(level));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "context 'stateMachineLogLevel' is set to '"
                + level
                + "' but must be ALL, ERROR, FATAL or OFF",
            e);
      }
    }
    if (has("stateMachineTracing")) {
      String tracing = get("stateMachineTracing", null);
      if (!tracing.equals("true") && !tracing.equals("false")) {
        throw new IllegalArgumentException(
            "context 'stateMachineTracing' is set to '" + tracing + "' but must be true or false");
      }
      b.stateMachineTracing(Boolean.parseBoolean(tracing));
    }
    b.staleAfterDays(number("staleAfterDays", IcebergCompactionProps.DEFAULT_STALE_AFTER_DAYS));
    if (has("workerReservedConcurrency")) {
      b.workerReservedConcurrency(number("workerReservedConcurrency", 0));
    }
    if (has("existingWorkBucket")) {
      b.workBucket(
          Bucket.fromBucketName(scope, "ExistingWorkBucket", get("existingWorkBucket", null)));
    }
    if (has("alarmTopicArn")) {
      b.alarmTopic(Topic.fromTopicArn(scope, "AlarmTopic", get("alarmTopicArn", null)));
    }
    if (has("table")) {
      b.table(
          ScheduledTable.builder(get("table", null), get("schedule", "rate(1 day)"))
              .options(stringMap("scheduleOptionsJson"))
              .build());
    } else if (has("schedule") || has("scheduleOptionsJson")) {
      throw new IllegalArgumentException(
          "context 'schedule'/'scheduleOptionsJson' is set but 'table' is not");
    }
    return b.build();
  }

  /**
   * Rejects a context name like the app's own that the app does not read, e.g. a misspelt {@code -c
   * tabel=...}, which would otherwise deploy without a schedule. The CDK's own names have ':', '@',
   * '/' or '-' in them.
   */
  void rejectUnknownNames() {
    if (scope.getNode().getAllContext() instanceof Map<?, ?> all) {
      for (Object key : all.keySet()) {
        String name = key.toString();
        if (name.matches("[A-Za-z][A-Za-z0-9]*") && !NAMES.contains(name)) {
          throw new IllegalArgumentException(
              "unknown context '" + name + "'; the app reads " + NAMES);
        }
      }
    }
  }

  /** The context name of a function's extra policy, e.g. {@code rewriteGroupExtraPolicyArn}. */
  static String extraPolicyName(CompactionFunction f) {
    return Character.toLowerCase(f.step().charAt(0)) + f.step().substring(1) + "ExtraPolicyArn";
  }

  /** SweepNamespaces: comma-separated, as the SAM parameter (the props check each namespace). */
  private List<String> sweepNamespaces() {
    return has("sweepNamespaces")
        ? List.of(get("sweepNamespaces", null).split(",", -1))
        : List.of();
  }

  /**
   * SweepCareSteps: comma-separated, or none for no step, as the SAM parameter (the props check
   * each name).
   */
  private List<String> sweepCareSteps() {
    String steps = get("sweepCareSteps", null);
    return steps.equals("none") ? List.of() : List.of(steps.split(",", -1));
  }

  private IcebergCatalog catalog() {
    String type = get("catalogType", "glue").toLowerCase(Locale.ROOT);
    Map<String, String> properties = stringMap("catalogPropertiesJson");
    if ((type.equals("rest") || type.equals("jdbc")) && properties.isEmpty()) {
      throw new IllegalArgumentException(
          "context 'catalogType' is "
              + type
              + " but 'catalogPropertiesJson' is not set: a "
              + type
              + " catalog needs its properties (uri, warehouse, ...)");
    }
    IcebergCatalog catalog =
        switch (type) {
          case "glue" -> {
            if (!has("glueDatabase")) {
              throw new IllegalArgumentException(
                  "context 'catalogType' is glue but 'glueDatabase' is not set: name the"
                      + " Glue database of the tables, e.g. -c glueDatabase=analytics (\"*\" = every database of the account)");
            }
            // Comma-separated: several databases (the SAM template takes one).
            yield IcebergCatalog.glue(List.of(get("glueDatabase", null).split(",", -1)));
          }
          case "dynamodb" -> IcebergCatalog.dynamoDb(get("catalogDynamoDbTable", "iceberg"));
          case "rest" -> IcebergCatalog.rest(properties);
          case "jdbc" -> IcebergCatalog.jdbc(properties);
          default ->
              throw new IllegalArgumentException(
                  "context 'catalogType' is set to '"
                      + type
                      + "' but must be glue, dynamodb, rest or jdbc");
        };
    // As CatalogPropertiesJson: given properties replace the derived ones of a glue or dynamodb
    // catalog.
    return properties.isEmpty() ? catalog : catalog.withProperties(properties);
  }

  private RetentionDays logRetention() {
    int days = number("logRetentionDays", 30);
    RetentionDays retention = RETENTION.get(days);
    if (retention == null) {
      throw new IllegalArgumentException(
          "context 'logRetentionDays' is set to "
              + days
              + " but must be one of "
              + RETENTION.keySet());
    }
    return retention;
  }

  private ApplicationLogLevel logLevel() {
    String level =
        get("logLevel", IcebergCompactionProps.DEFAULT_LOG_LEVEL.name()).toUpperCase(Locale.ROOT);
    try {
      return ApplicationLogLevel.valueOf(level);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "context 'logLevel' is set to '" + level + "' but must be TRACE, DEBUG or INFO", e);
    }
  }

  private Map<String, String> stringMap(String key) {
    if (!has(key)) {
      return Map.of();
    }
    String text = get(key, null);
    try {
      return JSON.readValue(text, new TypeReference<LinkedHashMap<String, String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "context '"
              + key
              + "' is set to "
              + text
              + " but must be a JSON object of strings: "
              + e.getOriginalMessage(),
          e);
    }
  }

  private int number(String key, int defaultValue) {
    String text = get(key, String.valueOf(defaultValue));
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "context '" + key + "' is set to '" + text + "' but must be a whole number", e);
    }
  }

  private String required(String key) {
    if (!has(key)) {
      throw new IllegalArgumentException(
          "context '" + key + "' is required, e.g. -c " + key + "=...");
    }
    return get(key, null);
  }

  /** Empty values count as unset, as empty SAM parameters do. */
  private boolean has(String key) {
    Object value = scope.getNode().tryGetContext(key);
    return value != null && !value.toString().isEmpty();
  }

  private String get(String key, String defaultValue) {
    if (!has(key)) {
      return defaultValue;
    }
    Object value = scope.getNode().tryGetContext(key);
    // cdk.json may hold JSON objects; -c always gives strings.
    if (value instanceof Map<?, ?> || value instanceof List<?>) {
      try {
        return JSON.writeValueAsString(value);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            "context '" + key + "' cannot be read: " + e.getOriginalMessage(), e);
      }
    }
    return value.toString();
  }

  private static Map<Integer, RetentionDays> retention() {
    Map<Integer, RetentionDays> m = new LinkedHashMap<>();
    m.put(1, RetentionDays.ONE_DAY);
    m.put(3, RetentionDays.THREE_DAYS);
    m.put(5, RetentionDays.FIVE_DAYS);
    m.put(7, RetentionDays.ONE_WEEK);
    m.put(14, RetentionDays.TWO_WEEKS);
    m.put(30, RetentionDays.ONE_MONTH);
    m.put(60, RetentionDays.TWO_MONTHS);
    m.put(90, RetentionDays.THREE_MONTHS);
    m.put(120, RetentionDays.FOUR_MONTHS);
    m.put(150, RetentionDays.FIVE_MONTHS);
    m.put(180, RetentionDays.SIX_MONTHS);
    m.put(365, RetentionDays.ONE_YEAR);
    m.put(400, RetentionDays.THIRTEEN_MONTHS);
    m.put(545, RetentionDays.EIGHTEEN_MONTHS);
    m.put(731, RetentionDays.TWO_YEARS);
    m.put(1096, RetentionDays.THREE_YEARS);
    m.put(1827, RetentionDays.FIVE_YEARS);
    m.put(2192, RetentionDays.SIX_YEARS);
    m.put(2557, RetentionDays.SEVEN_YEARS);
    m.put(2922, RetentionDays.EIGHT_YEARS);
    m.put(3288, RetentionDays.NINE_YEARS);
    m.put(3653, RetentionDays.TEN_YEARS);
    return java.util.Collections.unmodifiableMap(m);
  }
}
