package io.icecompact.infra.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.s3.Bucket;

/**
 * The props and their parts: defaults, what is refused and with which message, and the execution
 * inputs they make.
 */
class PropsTest {
  static final Stack SCOPE = new Stack(new App(), "Props");
  static final FunctionCode CODE = FunctionCode.fromBuiltJars(Path.of("unused"));

  @Test
  void defaultsAreTheSamTemplates() {
    IcebergCompactionProps props = valid(b -> {});
    assertThat(props.warehousePrefix()).isEqualTo("warehouse/");
    assertThat(props.workerReservedConcurrency()).isEmpty();
    assertThat(props.stateMachineLogLevel())
        .isEqualTo(software.amazon.awscdk.services.stepfunctions.LogLevel.ERROR);
    assertThat(props.stateMachineTracing()).isFalse();
    assertThat(props.staleAfterDays()).isEqualTo(3);
    for (CompactionFunction f : CompactionFunction.values()) {
      assertThat(props.extraPolicy(f)).as(f.name()).isEmpty();
    }
    assertThat(props.workBucket()).isEmpty();
    assertThat(props.workPrefix()).isEqualTo("icecompact/jobs/");
    assertThat(props.workArtefactRetentionDays()).isEqualTo(14);
    assertThat(props.unknownOrPartialThreshold()).isEqualTo(3);
    assertThat(props.scheduleTimezone()).isEqualTo("UTC");
    assertThat(props.alarmTopic()).isEmpty();
    assertThat(props.logLevel()).isEqualTo(ApplicationLogLevel.INFO);
    assertThat(props.tables()).isEmpty();
    assertThat(props.functionSize(CompactionFunction.REWRITE_GROUP))
        .isEqualTo(new FunctionSize(8192, 900, 10240));
    assertThat(props.functionSize(CompactionFunction.PLAN_REWRITE))
        .isEqualTo(FunctionSize.of(2048, 900));
    assertThat(props.functionSize(CompactionFunction.ACQUIRE_LEASE))
        .isEqualTo(FunctionSize.of(512, 60));
  }

  @Test
  void refusesWhatTheSamTemplateRefuses() {
    assertThatThrownBy(() -> IcebergCompactionProps.builder().functionCode(CODE).build())
        .hasMessageContaining("'warehouseBucket' is not set");
    // No catalog by default: a Glue catalog's grants name the database the user gives, never every
    // database unasked.
    assertThatThrownBy(
            () ->
                IcebergCompactionProps.builder()
                    .functionCode(CODE)
                    .warehouseBucket(Bucket.fromBucketName(SCOPE, "NoCatalog", "my-warehouse"))
                    .build())
        .hasMessageContaining("'catalog' is not set: e.g. IcebergCatalog.glue(\"analytics\")");
    assertThatThrownBy(() -> IcebergCatalog.glue("analytics/*"))
        .hasMessageContaining("'database' is set to 'analytics/*' but must match");
    assertThat(IcebergCatalog.glue("*").glueDatabases()).containsExactly("*");
    assertThatThrownBy(() -> IcebergCatalog.glue(List.of("*", "analytics")))
        .hasMessageContaining("holds '*' with others");
    assertThatThrownBy(() -> IcebergCatalog.glue("analytics").onlyTables(List.of("sales.orders")))
        .hasMessageContaining(
            "table 'sales.orders' must be <database>.<table> with a database of [analytics]");
    assertThatThrownBy(() -> IcebergCatalog.glue("analytics").onlyTables(List.of("analytics.*")))
        .hasMessageContaining("no '*'");
    assertRefused(
        b -> b.staleAfterDays(8), "'staleAfterDays' is set to 8 but must be between 1 and 7");
    assertRefused(
        b -> b.workerReservedConcurrency(0),
        "'workerReservedConcurrency' is set to 0 but must be between 1");
    assertThatThrownBy(
            () ->
                IcebergCompactionProps.builder()
                    .warehouseBucket(Bucket.fromBucketName(SCOPE, "NoCode", "my-warehouse"))
                    .catalog(IcebergCatalog.glue("analytics"))
                    .build())
        .hasMessageContaining("'functionCode' is not set");
    assertRefused(
        b -> b.warehousePrefix("warehouse"),
        "'warehousePrefix' is set to 'warehouse' but must be empty or end with '/'");
    assertRefused(b -> b.workPrefix("jobs"), "'workPrefix' is set to 'jobs' but must match");
    assertRefused(
        b -> b.workPrefix("jobs with space/"), "'workPrefix' is set to 'jobs with space/'");
    assertRefused(
        b -> b.workArtefactRetentionDays(0),
        "'workArtefactRetentionDays' is set to 0 but must be >= 1");
    assertRefused(
        b -> b.unknownOrPartialThreshold(0),
        "'unknownOrPartialThreshold' is set to 0 but must be >= 1");
    assertRefused(
        b -> b.functionSize(CompactionFunction.REWRITE_GROUP, new FunctionSize(2048, 900, 10240)),
        "the worker's memory is set to 2048 MB but must be >= 4096 MB");
    assertRefused(
        b -> b.logLevel(ApplicationLogLevel.WARN),
        "'logLevel' is set to WARN but must be TRACE, DEBUG or INFO");
    assertRefused(b -> b.name("has space"), "'name' is set to 'has space' but must match");
    assertRefused(
        b ->
            b.table(ScheduledTable.of("a.b", "rate(1 day)"))
                .table(ScheduledTable.of("a.b", "rate(2 days)")),
        "table a.b is scheduled twice");
    assertThat(valid(b -> b.warehousePrefix("")).warehousePrefix()).isEmpty();
  }

  @Test
  void functionSizesStayWithinLambdasLimits() {
    assertThatThrownBy(() -> FunctionSize.of(64, 60))
        .hasMessage("'memoryMb' is set to 64 but must be between 128 and 10240");
    assertThatThrownBy(() -> FunctionSize.of(512, 901))
        .hasMessage("'timeoutSeconds' is set to 901 but must be between 1 and 900");
    assertThatThrownBy(() -> FunctionSize.of(512, 60).withEphemeralStorageMb(20480))
        .hasMessage("'ephemeralStorageMb' is set to 20480 but must be between 512 and 10240");
  }

  @Test
  void scheduledTablesAreCheckedAsTheExecutionInputIs() {
    assertThatThrownBy(() -> ScheduledTable.of("orders", "rate(1 day)"))
        .hasMessageContaining(
            "'table' is set to 'orders' but must be namespace(s) and name separated by dots");
    assertThatThrownBy(() -> ScheduledTable.of("analytics.\"orders\"", "rate(1 day)"))
        .hasMessageContaining("without spaces or quotes");
    assertThatThrownBy(() -> ScheduledTable.of("analytics.orders", "daily"))
        .hasMessageContaining(
            "'schedule' of analytics.orders is set to 'daily' but must be an EventBridge Scheduler expression");
    assertThatThrownBy(
            () -> ScheduledTable.builder("a.b", "rate(1 day)").where("x > 1").filter("{}").build())
        .hasMessageContaining("'where' and 'filter' of a.b are both set but are exclusive");
    assertThatThrownBy(() -> ScheduledTable.builder("a.b", "rate(1 day)").maxConcurrency(0).build())
        .hasMessage("'maxConcurrency' is set to 0 but must be between 1 and 10000");
    assertThatThrownBy(
            () -> ScheduledTable.builder("a.b", "rate(1 day)").leaseTtlSeconds(30).build())
        .hasMessage("'leaseTtlSeconds' is set to 30 but must be between 60 and 86400");
  }

  @Test
  void catalogsDeriveOrCompleteTheirProperties() {
    assertThat(IcebergCatalog.glue("analytics").catalogProperties("s3://w/warehouse/"))
        .containsExactly(Map.entry("type", "glue"), Map.entry("warehouse", "s3://w/warehouse/"));
    assertThat(IcebergCatalog.dynamoDb("cat").catalogProperties("s3://w/"))
        .containsExactly(
            Map.entry("catalog-impl", "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog"),
            Map.entry("dynamodb.table-name", "cat"),
            Map.entry("warehouse", "s3://w/"));
    assertThat(IcebergCatalog.rest(Map.of("uri", "https://c")).catalogProperties("ignored"))
        .containsExactly(Map.entry("type", "rest"), Map.entry("uri", "https://c"));
    assertThat(
            IcebergCatalog.jdbc(Map.of("catalog-impl", "x.Y", "uri", "jdbc:h2:mem"))
                .catalogProperties("ignored"))
        .doesNotContainKey("type");
    // Given properties replace the derived ones, as CatalogPropertiesJson does, and keep the
    // grants.
    IcebergCatalog glue =
        IcebergCatalog.glue("analytics")
            .withProperties(Map.of("warehouse", "s3://other/", "glue.id", "123"));
    assertThat(glue.glueDatabases()).containsExactly("analytics");
    assertThat(glue.catalogProperties("s3://w/"))
        .containsEntry("type", "glue")
        .containsEntry("glue.id", "123")
        .containsEntry("warehouse", "s3://other/");
    assertThat(
            IcebergCatalog.dynamoDb("cat")
                .withProperties(Map.of("warehouse", "s3://w/"))
                .catalogProperties("x"))
        .containsEntry("catalog-impl", "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog");
    assertThatThrownBy(() -> IcebergCatalog.rest(Map.of()))
        .hasMessageContaining("a REST catalog needs its catalog properties");
    assertThatThrownBy(() -> IcebergCatalog.glue(" ")).hasMessageContaining("'database' is blank");
  }

  @Test
  void scheduledTablesMakeValidExecutionInputs() throws Exception {
    ObjectMapper json = new ObjectMapper();
    Map<String, String> glue =
        IcebergCatalog.glue("analytics").catalogProperties("s3://w/warehouse/");
    for (ScheduledTable table :
        new ScheduledTable[] {
          ScheduledTable.of("analytics.orders", "rate(1 day)"),
          ScheduledTable.builder("db.schema.events", "cron(0 3 * * ? *)")
              .options(Map.of("rewrite-all", "true"))
              .filter("{\"type\":\"eq\",\"term\":\"region\",\"value\":\"eu\"}")
              .maxConcurrency(10000)
              .leaseTtlSeconds(86400)
              .build(),
          ScheduledTable.builder("a.b", "at(2026-12-01T03:00:00)")
              .where("day = '2026-11-30'")
              .maxConcurrency(1)
              .leaseTtlSeconds(60)
              .build()
        }) {
      String input =
          json.writeValueAsString(table.executionInput(glue, "s3://work/jobs/" + table.table()));
      assertThat(ExecutionInputSchema.problems(input)).as(input).isEmpty();
    }
    Set<String> fields =
        new TreeSet<>(
            ScheduledTable.builder("a.b", "rate(1 day)")
                .where("x = 1")
                .maxConcurrency(2)
                .leaseTtlSeconds(600)
                .build()
                .executionInput(glue, "s3://w/")
                .keySet());
    assertThat(fields)
        .containsExactlyInAnyOrder(
            "table",
            "catalog_properties",
            "options",
            "where",
            "work_location",
            "max_concurrency",
            "lease_ttl_seconds");
  }

  @Test
  void theBundledDefinitionIsTheFileAndNamesTheCompactionSteps() {
    StateMachineDefinition definition = StateMachineDefinition.bundled();
    assertThat(definition.text()).isEqualTo(RepositoryFiles.read(RepositoryFiles.definitionFile()));
    Set<String> placeholders = new TreeSet<>();
    for (CompactionFunction f : CompactionFunction.compactionSteps()) {
      placeholders.add(f.definitionPlaceholder());
    }
    assertThat(definition.placeholders()).isEqualTo(placeholders);
    StateMachineDefinition sweep =
        StateMachineDefinition.bundled(StateMachineDefinition.SWEEP_RESOURCE);
    assertThat(sweep.text())
        .isEqualTo(
            RepositoryFiles.read(RepositoryFiles.root().resolve("state-machine/sweep.asl.json")));
    assertThat(sweep.placeholders())
        .containsExactly("AssessTablesFunctionArn", "CompactionStateMachineArn");
  }

  @Test
  void sweepSettingsAreChecked() throws Exception {
    assertRefused(
        b -> b.sweepNamespaces(List.of("analytics", " sales")),
        "sweep namespace ' sales' must be non-empty");
    assertRefused(b -> b.sweepNamespaces(List.of("")), "sweep namespace '' must be non-empty");
    assertRefused(
        b -> b.sweepNamespaces(List.of("a\\b")), "sweep namespace 'a\\b' must be non-empty");
    assertRefused(b -> b.sweepNamespaces(List.of("a", "a")), "names a namespace twice");
    assertRefused(b -> b.sweepSchedule("daily"), "'sweepSchedule' is set to 'daily' but must be");
    assertRefused(
        b -> b.sweepMaxTables(0), "'sweepMaxTables' is set to 0 but must be between 1 and 100");
    assertRefused(
        b -> b.sweepMaxConcurrentTables(0),
        "'sweepMaxConcurrentTables' is set to 0 but must be between 1 and 40");
    assertRefused(
        b -> b.sweepCareSteps(List.of("expire_snapshots")),
        "sweep care step 'expire_snapshots' is not one of");
    assertRefused(b -> b.sweepCareSteps(List.of("none")), "sweep care step 'none' is not one of");
    assertRefused(
        b -> b.sweepCareSteps(List.of("remove-orphans", "remove-orphans")), "names a step twice");
    assertThat(valid(b -> b.sweepCareSteps(List.of())).sweepCareSteps()).contains(List.of());
    // the names the sweep input accepts, no more, no less
    ObjectMapper json = new ObjectMapper();
    assertThat(IcebergCompactionProps.CARE_STEPS)
        .isEqualTo(
            json.convertValue(
                json.readTree(
                        RepositoryFiles.read(
                            RepositoryFiles.root()
                                .resolve("state-machine/sweep-input.schema.json")))
                    .at("/properties/care_steps/items/enum"),
                List.class));
    IcebergCompactionProps defaults = valid(b -> {});
    assertThat(defaults.sweepNamespaces()).isEmpty();
    assertThat(defaults.sweepCareSteps())
        .as("not passed: the sweep's defaults, which delete nothing")
        .isEmpty();
    assertThat(defaults.sweepSchedule()).isEqualTo("rate(1 day)");
    assertThat(defaults.sweepMaxTables()).isEqualTo(10);
    assertThat(defaults.sweepMaxConcurrentTables()).isEqualTo(4);
  }

  /**
   * sweepMaxTables and sweepMaxConcurrentTables take exactly what the sweep input schema accepts
   * for max_tables and max_concurrent_tables: a value outside would deploy, then fail every sweep's
   * validation.
   */
  @Test
  void sweepBoundsAreTheSweepInputSchemas() throws Exception {
    ObjectMapper json = new ObjectMapper();
    com.fasterxml.jackson.databind.JsonNode schema =
        json.readTree(
            RepositoryFiles.read(
                RepositoryFiles.root().resolve("state-machine/sweep-input.schema.json")));
    int maxTables = schema.at("/properties/max_tables/maximum").asInt();
    int maxConcurrent = schema.at("/properties/max_concurrent_tables/maximum").asInt();
    assertThat(schema.at("/properties/max_tables/minimum").asInt()).isEqualTo(1);
    assertThat(schema.at("/properties/max_concurrent_tables/minimum").asInt()).isEqualTo(1);
    assertThat(IcebergCompactionProps.MAX_SWEEP_MAX_TABLES).isEqualTo(maxTables);
    assertThat(IcebergCompactionProps.MAX_SWEEP_MAX_CONCURRENT_TABLES).isEqualTo(maxConcurrent);
    assertThat(
            valid(b -> b.sweepMaxTables(maxTables).sweepMaxConcurrentTables(maxConcurrent))
                .sweepMaxTables())
        .isEqualTo(maxTables);
    assertRefused(
        b -> b.sweepMaxTables(maxTables + 1),
        "'sweepMaxTables' is set to "
            + (maxTables + 1)
            + " but must be between 1 and "
            + maxTables);
    assertRefused(
        b -> b.sweepMaxConcurrentTables(maxConcurrent + 1),
        "'sweepMaxConcurrentTables' is set to "
            + (maxConcurrent + 1)
            + " but must be between 1 and "
            + maxConcurrent);
    // What the bounds protect: the schedule's input at the maxima is a valid sweep input, one above
    // is not.
    String atMaxima =
        "{\"catalog_properties\": {\"type\": \"glue\"}, \"namespaces\": [\"a\"], \"max_tables\": "
            + maxTables
            + ", \"max_concurrent_tables\": "
            + maxConcurrent
            + "}";
    assertThat(ExecutionInputSchema.sweepProblems(atMaxima)).isEmpty();
    assertThat(
            ExecutionInputSchema.sweepProblems(
                atMaxima.replace(": " + maxTables + ",", ": " + (maxTables + 1) + ",")))
        .isNotEmpty();
  }

  private static IcebergCompactionProps valid(Consumer<IcebergCompactionProps.Builder> customize) {
    IcebergCompactionProps.Builder b =
        IcebergCompactionProps.builder()
            .warehouseBucket(Bucket.fromBucketName(SCOPE, "W" + System.nanoTime(), "my-warehouse"))
            .catalog(IcebergCatalog.glue("analytics"))
            .functionCode(CODE);
    customize.accept(b);
    return b.build();
  }

  private static void assertRefused(
      Consumer<IcebergCompactionProps.Builder> customize, String message) {
    assertThatThrownBy(() -> valid(customize))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
