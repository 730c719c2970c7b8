package io.icecompact.infra.cdk;

import static io.icecompact.infra.cdk.CfnMaps.map;
import static io.icecompact.infra.cdk.CfnMaps.props;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.logs.LogGroup;

/**
 * The sample app as `cdk synth -c ...` runs it: context values in, the stack and its outputs out.
 */
class IcecompactAppTest {
  static final String TOPIC = "arn:aws:sns:eu-west-1:123456789012:alarms";
  static Stack stack;
  static Map<String, Object> template;
  static Map<String, Object> resources;

  @BeforeAll
  static void synthesize() {
    Map<String, String> context =
        new HashMap<>(
            Map.of(
                "stackName", "icecompact-test",
                "warehouseBucket", "my-warehouse",
                "catalogType", "dynamodb",
                "catalogDynamoDbTable", "iceberg_catalog",
                "table", "analytics.orders",
                "schedule", "rate(12 hours)",
                "scheduleOptionsJson", "{\"min-input-files\": \"3\"}",
                "logRetentionDays", "90",
                "workerMemorySize", "10240",
                "alarmTopicArn", TOPIC));
    context.put("logLevel", "debug");
    context.put("sweepNamespaces", "analytics,sales.raw");
    context.put("sweepSchedule", "cron(0 2 * * ? *)");
    context.put("sweepMaxTables", "20");
    context.put("sweepMaxConcurrentTables", "2");
    context.put("sweepCareSteps", "expire-snapshots,remove-orphans");
    stack = IcecompactApp.stack(app(context));
    template = map(Template.fromStack(stack).toJSON());
    resources =
        new ResolvedTemplate(template, Map.of(), SynthesizedCompaction::constructId).resources();
  }

  @Test
  void theStackIsNamedByContextAndHasTheSamTemplatesOutputs() {
    assertThat(stack.getStackName()).isEqualTo("icecompact-test");
    assertThat(map(template.get("Outputs")))
        .containsKeys(
            "StateMachineArn",
            "SweepStateMachineArn",
            "LeaseTableName",
            "WorkBucketName",
            "WorkLocationPrefix");
    Object sweepArn =
        map(map(map(template.get("Outputs")).get("SweepStateMachineArn")).get("Value")).get("Ref");
    assertThat(SynthesizedCompaction.constructId((String) sweepArn)).isEqualTo("SweepStateMachine");
    assertThat(map(map(template.get("Outputs")).get("WorkLocationPrefix")).get("Value"))
        .isEqualTo("icecompact/jobs/");
  }

  /**
   * The outputs tell what the SAM template's do (same words; SAM's folded YAML differs in white
   * space only).
   */
  @Test
  void theOutputsDescribeWhatTheSamTemplatesDo() throws Exception {
    Map<String, Object> samOutputs =
        map(io.icecompact.infra.CfnYaml.load(RepositoryFiles.samTemplate()).get("Outputs"));
    Map<String, Object> cdkOutputs = map(template.get("Outputs"));
    for (String id :
        List.of(
            "StateMachineArn",
            "SweepStateMachineArn",
            "LeaseTableName",
            "WorkBucketName",
            "WorkLocationPrefix")) {
      assertThat(words(map(cdkOutputs.get(id)).get("Description")))
          .as(id)
          .isEqualTo(words(map(samOutputs.get(id)).get("Description")));
    }
    // Neither tells an operator to start a sweep or an execution whose jobs go where no function
    // may write.
    assertThat(words(map(cdkOutputs.get("WorkLocationPrefix")).get("Description")))
        .contains("s3://<WorkBucketName>/<this> ")
        .doesNotContain("<this><table>");
    assertThat(words(map(cdkOutputs.get("SweepStateMachineArn")).get("Description")))
        .contains("\"work_location\"", "<location>/_icecompact");
  }

  private static String words(Object text) {
    return ((String) text).trim().replaceAll("\\s+", " ");
  }

  @Test
  void contextValuesReachTheConstruct() throws Exception {
    Map<String, Object> schedule =
        SamParityTest.schedulesByDescription(resources).get("icecompact: compact analytics.orders");
    assertThat(schedule.get("ScheduleExpression")).isEqualTo("rate(12 hours)");
    String input =
        ((String) map(schedule.get("Target")).get("Input")).replace("${WorkBucket}", "work");
    assertThat(new ObjectMapper().readValue(input, Map.class))
        .isEqualTo(
            Map.of(
                "table",
                "analytics.orders",
                "catalog_properties",
                Map.of(
                    "catalog-impl",
                    "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog",
                    "dynamodb.table-name",
                    "iceberg_catalog",
                    "warehouse",
                    "s3://my-warehouse/warehouse/"),
                "options",
                Map.of("min-input-files", "3"),
                // the work prefix only, as the sweep's: the job appends the table (no
                // .../analytics.orders/analytics.orders)
                "work_location",
                "s3://work/icecompact/jobs/"));
    assertThat(props(map(resources.get("RewriteGroupFunction"))).get("MemorySize"))
        .isEqualTo(10240);
    assertThat(props(map(resources.get("PlanRewriteLogGroup"))).get("RetentionInDays"))
        .isEqualTo(90);
    assertThat(
            map(props(map(resources.get("PlanRewriteFunction"))).get("LoggingConfig"))
                .get("ApplicationLogLevel"))
        .isEqualTo("DEBUG");
    assertThat(props(map(resources.get("ExecutionsFailedAlarm"))).get("AlarmActions"))
        .isEqualTo(List.of(TOPIC));
    assertThat(
            CfnMaps.actions(
                props(map(resources.get("CommitSnapshotFunctionRole"))).get("Policies")))
        .contains("dynamodb:PutItem")
        .doesNotContain("glue:UpdateTable");
  }

  @Test
  void theSweepContextReachesTheSweepSchedule() throws Exception {
    Map<String, Object> schedule = props(map(resources.get("SweepNamespacesSchedule")));
    assertThat(schedule.get("ScheduleExpression")).isEqualTo("cron(0 2 * * ? *)");
    String input =
        ((String) map(schedule.get("Target")).get("Input")).replace("${WorkBucket}", "work");
    assertThat(new ObjectMapper().readValue(input, Map.class))
        .isEqualTo(
            Map.of(
                "catalog_properties",
                Map.of(
                    "catalog-impl",
                    "org.apache.iceberg.aws.dynamodb.DynamoDbCatalog",
                    "dynamodb.table-name",
                    "iceberg_catalog",
                    "warehouse",
                    "s3://my-warehouse/warehouse/"),
                "namespaces",
                List.of("analytics", "sales.raw"),
                "max_tables",
                20,
                "max_concurrent_tables",
                2,
                "work_location",
                "s3://work/icecompact/jobs/",
                "care_steps",
                List.of("expire-snapshots", "remove-orphans")));
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(
                        Map.of(
                            "warehouseBucket",
                            "my-warehouse",
                            "sweepNamespaces",
                            "analytics, sales"))))
        .hasMessageContaining(
            "sweep namespace ' sales' must be non-empty without commas, spaces, quotes");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(
                        Map.of(
                            "warehouseBucket",
                            "my-warehouse",
                            "sweepNamespaces",
                            "analytics",
                            "sweepCareSteps",
                            "expire-snapshots, remove-orphans"))))
        .hasMessageContaining("sweep care step ' remove-orphans' is not one of");
  }

  @Test
  void theOperationsContextReachesTheConstruct() {
    String kms = "arn:aws:iam::123456789012:policy/kms";
    Map<String, String> context =
        new HashMap<>(
            Map.of(
                "warehouseBucket",
                "my-warehouse",
                "workerReservedConcurrency",
                "60",
                "rewriteGroupExtraPolicyArn",
                kms,
                "stateMachineLogLevel",
                "all",
                "stateMachineTracing",
                "true",
                "staleAfterDays",
                "5",
                "table",
                "analytics.orders"));
    Map<String, Object> synthesized =
        map(Template.fromStack(IcecompactApp.stack(app(context))).toJSON());
    Map<String, Object> custom =
        new ResolvedTemplate(synthesized, Map.of(), SynthesizedCompaction::constructId).resources();
    assertThat(props(map(custom.get("RewriteGroupFunction"))).get("ReservedConcurrentExecutions"))
        .isEqualTo(60);
    assertThat(
            CfnMaps.list(
                props(map(custom.get("RewriteGroupFunctionRole"))).get("ManagedPolicyArns")))
        .contains(kms);
    assertThat(
            CfnMaps.list(
                props(map(custom.get("CommitSnapshotFunctionRole"))).get("ManagedPolicyArns")))
        .doesNotContain(kms);
    Map<String, Object> machine = props(map(custom.get("CompactionStateMachine")));
    assertThat(map(machine.get("LoggingConfiguration")).get("Level")).isEqualTo("ALL");
    assertThat(machine.get("TracingConfiguration")).isEqualTo(Map.of("Enabled", true));
    assertThat(SamParityTest.stalenessAlarmsByTable(custom).get("analytics.orders"))
        .containsEntry("EvaluationPeriods", 5);
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(
                        Map.of(
                            "warehouseBucket", "my-warehouse", "stateMachineLogLevel", "verbose"))))
        .hasMessageContaining(
            "'stateMachineLogLevel' is set to 'VERBOSE' but must be ALL, ERROR, FATAL or OFF");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(Map.of("warehouseBucket", "my-warehouse", "stateMachineTracing", "yes"))))
        .hasMessageContaining("'stateMachineTracing' is set to 'yes' but must be true or false");
  }

  @Test
  void aMisspeltContextNameIsAnError() {
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(Map.of("warehouseBucket", "my-warehouse", "tabel", "analytics.orders"))))
        .hasMessageContaining("unknown context 'tabel'");
  }

  @Test
  void missingSettingsAreNamed() {
    assertThatThrownBy(() -> IcecompactApp.stack(app(Map.of("table", "analytics.orders"))))
        .hasMessageContaining("context 'warehouseBucket' is required");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(Map.of("warehouseBucket", "my-warehouse", "glueDatabase", ""))))
        .hasMessageContaining("context 'catalogType' is glue but 'glueDatabase' is not set");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(Map.of("warehouseBucket", "my-warehouse", "catalogType", "rest"))))
        .hasMessageContaining("'catalogPropertiesJson' is not set");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(Map.of("warehouseBucket", "my-warehouse", "logRetentionDays", "31"))))
        .hasMessageContaining("'logRetentionDays' is set to 31 but must be one of");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    app(Map.of("warehouseBucket", "my-warehouse", "schedule", "rate(1 hour)"))))
        .hasMessageContaining("'table' is not");
  }

  @Test
  void withoutBuiltJarsTheAppSaysHowToBuildThem() {
    Map<String, Object> context =
        new HashMap<>(Map.of("warehouseBucket", "my-warehouse", "glueDatabase", "analytics"));
    context.put("repositoryRoot", "/nonexistent/icecompact");
    assertThatThrownBy(
            () ->
                IcecompactApp.stack(
                    new App(software.amazon.awscdk.AppProps.builder().context(context).build())))
        .hasMessageContaining("mvn -B -DskipTests package");
  }

  @Test
  void everyLogRetentionDayCountMapsToItsRetention() {
    Stack retentions = new Stack(new App(), "Retentions");
    AppContext.RETENTION.forEach(
        (days, retention) ->
            LogGroup.Builder.create(retentions, "Days" + days).retention(retention).build());
    Map<String, Object> logGroups = map(Template.fromStack(retentions).toJSON().get("Resources"));
    assertThat(logGroups).hasSize(22);
    logGroups.forEach(
        (id, group) ->
            assertThat(props(map(group)).get("RetentionInDays"))
                .as(id)
                .isEqualTo(Integer.parseInt(id.replaceAll("^Days(\\d+)[0-9A-F]{8}$", "$1"))));
  }

  private static App app(Map<String, String> context) {
    Map<String, Object> all = new HashMap<>(context);
    all.putIfAbsent("repositoryRoot", StandInJars.create().toString());
    all.putIfAbsent("glueDatabase", "analytics");
    return new App(
        software.amazon.awscdk.AppProps.builder()
            .context(all)
            .outdir(ScratchDirs.create("app-out").toString())
            .build());
  }
}
