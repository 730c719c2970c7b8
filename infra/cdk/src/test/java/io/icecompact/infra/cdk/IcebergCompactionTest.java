package io.icecompact.infra.cdk;

import static io.icecompact.infra.cdk.CfnMaps.list;
import static io.icecompact.infra.cdk.CfnMaps.map;
import static io.icecompact.infra.cdk.CfnMaps.props;
import static io.icecompact.infra.cdk.CfnMaps.statements;
import static io.icecompact.infra.cdk.CfnMaps.strings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.services.sns.Topic;

/**
 * The construct with a Glue catalog, a created work bucket, an alarm topic, two scheduled tables
 * and a sweep of two namespaces: what it deploys, resource by resource, and the IAM actions of
 * every role.
 */
class IcebergCompactionTest {
  static final String TOPIC = "arn:aws:sns:eu-west-1:123456789012:icecompact-alarms";
  static final String BASIC_EXECUTION =
      "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole";

  /**
   * Each function role's statements, by Sid: the least privilege infra/template.yaml grants with a
   * Glue catalog.
   */
  static final Map<CompactionFunction, Map<String, Set<String>>> GLUE_ACTIONS =
      Map.of(
          CompactionFunction.ACQUIRE_LEASE,
              Map.of(
                  "LeaseTable",
                  Set.of(
                      "dynamodb:GetItem",
                      "dynamodb:PutItem",
                      "dynamodb:UpdateItem",
                      "dynamodb:Query")),
          CompactionFunction.RELEASE_LEASE,
              Map.of(
                  "LeaseTable",
                  Set.of(
                      "dynamodb:GetItem",
                      "dynamodb:PutItem",
                      "dynamodb:UpdateItem",
                      "dynamodb:Query")),
          CompactionFunction.PLAN_REWRITE,
              Map.of(
                  "WarehouseList", Set.of("s3:ListBucket"),
                  "WarehouseRead", Set.of("s3:GetObject"),
                  "WorkLocationList", Set.of("s3:ListBucket"),
                  "WorkLocationRead", Set.of("s3:GetObject"),
                  "GlueCatalogRead", Set.of("glue:GetDatabase", "glue:GetTable")),
          CompactionFunction.REWRITE_GROUP,
              Map.of(
                  "LeaseHeartbeat", Set.of("dynamodb:GetItem", "dynamodb:UpdateItem"),
                  "WarehouseList", Set.of("s3:ListBucket"),
                  "WarehouseRead", Set.of("s3:GetObject"),
                  "WorkLocationList", Set.of("s3:ListBucket"),
                  "WorkLocationRead", Set.of("s3:GetObject")),
          CompactionFunction.RECORD_GROUP_FAILURE,
              Map.of(
                  "WorkLocationList", Set.of("s3:ListBucket"),
                  "DefaultWorkLocationList", Set.of("s3:ListBucket"),
                  "WorkLocationRead", Set.of("s3:GetObject")),
          CompactionFunction.COMMIT_SNAPSHOT,
              Map.of(
                  "LeaseCheck", Set.of("dynamodb:GetItem", "dynamodb:UpdateItem"),
                  "WarehouseList", Set.of("s3:ListBucket"),
                  "WarehouseRead", Set.of("s3:GetObject"),
                  "WorkLocationList", Set.of("s3:ListBucket"),
                  "WorkLocationRead", Set.of("s3:GetObject"),
                  "GlueCatalogCommit",
                      Set.of("glue:GetDatabase", "glue:GetTable", "glue:UpdateTable")),
          // The committer's, plus reading the catalog for the shared-files check.
          CompactionFunction.CARE_FOR_TABLE,
              Map.of(
                  "LeaseCheck",
                  Set.of("dynamodb:GetItem", "dynamodb:UpdateItem"),
                  "WarehouseList",
                  Set.of("s3:ListBucket"),
                  "WarehouseRead",
                  Set.of("s3:GetObject"),
                  "WorkLocationList",
                  Set.of("s3:ListBucket"),
                  "WorkLocationRead",
                  Set.of("s3:GetObject"),
                  "GlueCatalogCommit",
                  Set.of("glue:GetDatabase", "glue:GetTable", "glue:UpdateTable"),
                  "GlueCatalogReadForSharedFiles",
                  Set.of(
                      "glue:GetDatabases", "glue:GetDatabase", "glue:GetTables", "glue:GetTable")),
          // Reads only: metadata, and the catalog's table list.
          CompactionFunction.ASSESS_TABLES,
              Map.of(
                  "WarehouseList", Set.of("s3:ListBucket"),
                  "MetadataRead", Set.of("s3:GetObject"),
                  "GlueCatalogList",
                      Set.of("glue:GetDatabase", "glue:GetTables", "glue:GetTable")));

  static final List<String> CATALOG_ACTION_PREFIXES =
      List.of("glue:", "dynamodb:", "s3tables:", "lakeformation:", "secretsmanager:", "rds-db:");

  static SynthesizedCompaction stack;
  static Map<String, Object> resources;

  @BeforeAll
  static void synthesize() {
    stack =
        SynthesizedCompaction.of(
            (scope, props) ->
                props
                    .alarmTopic(Topic.fromTopicArn(scope, "Alarms", TOPIC))
                    .table(
                        ScheduledTable.builder("analytics.orders", "rate(6 hours)")
                            .option("min-input-files", "2")
                            .build())
                    .table(
                        ScheduledTable.builder("analytics.events", "cron(0 3 * * ? *)")
                            .where("day >= '2026-01-01'")
                            .maxConcurrency(8)
                            .leaseTtlSeconds(3600)
                            .build())
                    .sweepNamespaces(List.of("analytics", "sales.raw")));
    resources = stack.resolved().resources();
  }

  @Test
  void deploysTheResourcesOfTheSamTemplateAndNoOthers() {
    Map<String, Integer> expected =
        new TreeMap<>(
            Map.of(
                "AWS::Lambda::Function", 8,
                "AWS::IAM::Role",
                    13, // one per function, each state machine's, the schedulers' (tables, sweep),
                // the
                // table-access role
                "AWS::Logs::LogGroup", 10, // each function's and each state machine's
                "AWS::StepFunctions::StateMachine", 2,
                "AWS::DynamoDB::Table", 1,
                "AWS::S3::Bucket", 1,
                "AWS::Scheduler::Schedule", 3,
                "AWS::CloudWatch::Alarm", 8, // six, and each scheduled table's staleness
                "AWS::Logs::MetricFilter", 2)); // unknown-or-partial jobs, refused-or-failed care
    expected.putAll(
        Map.of(
            "AWS::S3::BucketPolicy", 1, // TLS only
            "AWS::SQS::Queue", 1, // the schedules' dead letters
            "AWS::SQS::QueuePolicy", 1, // TLS only
            "AWS::CloudWatch::Dashboard", 1));
    Map<String, Integer> actual = new TreeMap<>();
    resources.values().forEach(r -> actual.merge((String) map(r).get("Type"), 1, Integer::sum));
    // No AWS::IAM::Policy: a grant made by a CDK L2 would show up as one.
    assertThat(actual).isEqualTo(expected);
    expected.forEach((type, count) -> stack.template.resourceCountIs(type, count));
  }

  @Test
  void functionsRunJava21OnArm64WithTheirHandlersSizesAndEnvironment() {
    for (CompactionFunction f : CompactionFunction.values()) {
      Map<String, Object> p = function(f);
      assertThat(p.get("Runtime")).as(f.name()).isEqualTo("java21");
      assertThat(p.get("Architectures")).as(f.name()).isEqualTo(List.of("arm64"));
      assertThat(p.get("Handler")).as(f.name()).isEqualTo(f.handler());
      assertThat(p.get("MemorySize")).as(f.name()).isEqualTo(f.defaultSize().memoryMb());
      assertThat(p.get("Timeout")).as(f.name()).isEqualTo(f.defaultSize().timeoutSeconds());
      assertThat(p.get("TracingConfig")).as(f.name()).isEqualTo(Map.of("Mode", "PassThrough"));
      assertThat(p.get("Description")).as(f.name()).isEqualTo(f.description());
      assertThat(p.get("Role")).as(f.name()).isEqualTo("${" + f.step() + "FunctionRole.Arn}");

      Map<String, Object> env = new LinkedHashMap<>();
      if (f.usesLeaseTable()) {
        env.put("LEASE_TABLE", "${LeaseTable}");
      }
      // C2 only where the work is a minutes-long hot loop (docs/deploy.md, "JIT compilers")
      int level = f == CompactionFunction.REWRITE_GROUP ? 4 : 1;
      env.put("JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=" + level);
      // the stages that write a table write through its session policy (TableSessionPolicy)
      if (Set.of(
              CompactionFunction.PLAN_REWRITE,
              CompactionFunction.REWRITE_GROUP,
              CompactionFunction.RECORD_GROUP_FAILURE,
              CompactionFunction.COMMIT_SNAPSHOT,
              CompactionFunction.CARE_FOR_TABLE)
          .contains(f)) {
        env.put("TABLE_ACCESS_ROLE_ARN", "${TableAccessRole.Arn}");
      }
      // the deployment's scope, checked before any write: the Glue database's tables, the
      // IAM-granted prefixes
      env.put(
          "CATALOG_PROPERTIES",
          "{\"type\":\"glue\",\"warehouse\":\"s3://my-warehouse/warehouse/\"}");
      env.put("ALLOWED_TABLES", "analytics.*");
      env.put(
          "ALLOWED_LOCATIONS", "s3://my-warehouse/warehouse/,s3://${WorkBucket}/icecompact/jobs/");
      assertThat(p.get("Environment")).as(f.name()).isEqualTo(Map.of("Variables", env));

      String className = f.handler().substring(0, f.handler().indexOf("::"));
      Path source =
          RepositoryFiles.root()
              .resolve(f.module())
              .resolve("src/main/java")
              .resolve(className.replace('.', '/') + ".java");
      assertThat(source).as(f + " handler source").exists();
    }
    // Only the worker needs more than Lambda's default 512 MB of /tmp.
    assertThat(function(CompactionFunction.REWRITE_GROUP).get("EphemeralStorage"))
        .isEqualTo(Map.of("Size", 10240));
    assertThat(function(CompactionFunction.REWRITE_GROUP).get("MemorySize")).isEqualTo(8192);
    for (CompactionFunction f : CompactionFunction.values()) {
      if (f != CompactionFunction.REWRITE_GROUP) {
        assertThat(function(f)).as(f.name()).doesNotContainKey("EphemeralStorage");
      }
    }
  }

  @Test
  void eachFunctionRunsTheJarOfItsModule() throws IOException {
    Set<String> keys = new TreeSet<>();
    for (CompactionFunction f : CompactionFunction.values()) {
      String key = (String) map(function(f).get("Code")).get("S3Key");
      keys.add(key);
      Path staged = stack.outdir.resolve("asset." + key);
      assertThat(staged).as(f.name()).exists();
      assertThat(Files.readString(staged, StandardCharsets.UTF_8))
          .as(f.name())
          .isEqualTo(StandInJars.content(f.module()));
    }
    assertThat(keys)
        .as("one asset per module: the two lease and the two worker functions share theirs")
        .hasSize(5);
  }

  @Test
  void eachFunctionLogsToItsOwnLogGroupWithTheRetention() {
    for (CompactionFunction f : CompactionFunction.values()) {
      // JSON lines, filtered by Lambda at INFO: the job line and the metric lines have no level and
      // count as INFO.
      assertThat(function(f).get("LoggingConfig"))
          .as(f.name())
          .isEqualTo(
              Map.of(
                  "LogGroup", "${" + f.step() + "LogGroup}",
                  "LogFormat", "JSON",
                  "ApplicationLogLevel", "INFO",
                  "SystemLogLevel", "INFO"));
      Map<String, Object> logGroup = map(resources.get(f.step() + "LogGroup"));
      assertThat(props(logGroup))
          .as(f.name())
          .isEqualTo(
              Map.of(
                  "LogGroupName",
                  "/icecompact/${AWS::StackName}/" + f.logGroupSuffix(),
                  "RetentionInDays",
                  30));
      // Kept after the stack: the record of what each step did, expiring with the retention anyway.
      assertThat(logGroup.get("DeletionPolicy")).as(f.name()).isEqualTo("Retain");
      assertThat(logGroup.get("UpdateReplacePolicy")).as(f.name()).isEqualTo("Retain");
    }
    assertThat(CompactionFunction.RECORD_GROUP_FAILURE.logGroupSuffix())
        .isEqualTo("record-group-failure");
  }

  @Test
  void everyScheduleRetriesForAnHourThenLeavesTheStartInAnEncryptedTlsOnlyDeadLetterQueue() {
    Map<String, Map<String, Object>> schedules = SamParityTest.schedulesByDescription(resources);
    assertThat(schedules).hasSize(3);
    schedules.forEach(
        (description, schedule) -> {
          Map<String, Object> target = map(schedule.get("Target"));
          assertThat(target.get("RetryPolicy"))
              .as(description)
              .isEqualTo(Map.of("MaximumEventAgeInSeconds", 3600, "MaximumRetryAttempts", 5));
          assertThat(target.get("DeadLetterConfig"))
              .as(description)
              .isEqualTo(Map.of("Arn", "${ScheduleDeadLetterQueue.Arn}"));
        });
    assertThat(props(map(resources.get("ScheduleDeadLetterQueue"))))
        .isEqualTo(Map.of("SqsManagedSseEnabled", true, "MessageRetentionPeriod", 1209600));
    assertThat(
            statements(
                props(map(resources.get("ScheduleDeadLetterQueuePolicy"))).get("PolicyDocument")))
        .singleElement()
        .isEqualTo(tlsOnly("sqs:*", "${ScheduleDeadLetterQueue.Arn}"));
    Map<String, Object> alarm = props(map(resources.get("ScheduleDeadLettersAlarm")));
    assertThat(alarm)
        .containsEntry("Namespace", "AWS/SQS")
        .containsEntry("MetricName", "ApproximateNumberOfMessagesVisible")
        .containsEntry(
            "Dimensions",
            List.of(Map.of("Name", "QueueName", "Value", "${ScheduleDeadLetterQueue.QueueName}")))
        .containsEntry("Threshold", 1)
        .containsEntry("AlarmActions", List.of(TOPIC));
    assertThat(stack.compaction.scheduleDeadLetterQueue()).isPresent();
    // Kept with the stack gone or the queue replaced, as the lease table and the log groups.
    assertThat(map(resources.get("ScheduleDeadLetterQueue")))
        .containsEntry("DeletionPolicy", "Retain")
        .containsEntry("UpdateReplacePolicy", "Retain");
    assertThat(stack.compaction.workLocation())
        .isEqualTo(stack.compaction.workLocation("x").replaceFirst("x$", ""));
    assertThat(stack.compaction.workLocation("Analytics.Orders"))
        .endsWith("/icecompact/jobs/analytics.orders");
  }

  @Test
  void withoutSchedulesThereIsNoDeadLetterQueue() {
    Map<String, Object> none =
        SynthesizedCompaction.of((scope, props) -> {}).resolved().resources();
    assertThat(none.values().stream().map(r -> map(r).get("Type")))
        .doesNotContain("AWS::SQS::Queue", "AWS::Scheduler::Schedule");
  }

  @Test
  void theWorkBucketRefusesPlainHttp() {
    assertThat(statements(props(map(resources.get("WorkBucketPolicy"))).get("PolicyDocument")))
        .singleElement()
        .isEqualTo(tlsOnly("s3:*", List.of("${WorkBucket.Arn}", "${WorkBucket.Arn}/*")));
  }

  @Test
  void extraPoliciesReachTheirFunctionsRoleOnlyAndTheWorkerMayReserveConcurrency() {
    String kms = "arn:aws:iam::123456789012:policy/kms";
    Map<String, Object> custom =
        SynthesizedCompaction.of(
                (scope, props) ->
                    props
                        .extraPolicy(
                            CompactionFunction.REWRITE_GROUP,
                            software.amazon.awscdk.services.iam.ManagedPolicy.fromManagedPolicyArn(
                                scope, "Kms", kms))
                        .workerReservedConcurrency(50))
            .resolved()
            .resources();
    for (CompactionFunction f : CompactionFunction.values()) {
      List<Object> managed =
          list(props(map(custom.get(f.step() + "FunctionRole"))).get("ManagedPolicyArns"));
      assertThat(managed.contains(kms))
          .as(f.name())
          .isEqualTo(f == CompactionFunction.REWRITE_GROUP);
      Object reserved =
          props(map(custom.get(f.step() + "Function"))).get("ReservedConcurrentExecutions");
      assertThat(reserved)
          .as(f.name())
          .isEqualTo(f == CompactionFunction.REWRITE_GROUP ? 50 : null);
      // None by default: a reservation is carved out of the account's pool (and refused below 100
      // left).
      assertThat(function(f)).as(f.name()).doesNotContainKey("ReservedConcurrentExecutions");
    }
  }

  static Map<String, Object> errorLogging(String logGroup) {
    return Map.of(
        "Level",
        "ERROR",
        "IncludeExecutionData",
        false,
        "Destinations",
        List.of(
            Map.of("CloudWatchLogsLogGroup", Map.of("LogGroupArn", "${" + logGroup + ".Arn}"))));
  }

  @Test
  void eachScheduledTableHasAStalenessAlarmOnItsJobMetrics() {
    assertThat(stack.compaction.stalenessAlarms())
        .containsOnlyKeys("analytics.orders", "analytics.events");
    Map<String, Object> alarm =
        SamParityTest.stalenessAlarmsByTable(resources).get("analytics.orders");
    assertThat(alarm)
        .containsEntry("EvaluationPeriods", 3)
        .containsEntry("DatapointsToAlarm", 3)
        .containsEntry("TreatMissingData", "breaching")
        .containsEntry("ComparisonOperator", "LessThanThreshold")
        .containsEntry("AlarmActions", List.of(TOPIC));
    // Only COMMITTED, PARTIAL and NOTHING_TO_DO jobs keep a table fresh: every other status is
    // subtracted.
    List<Object> metrics = list(alarm.get("Metrics"));
    assertThat(map(metrics.get(0)).get("Expression"))
        .isEqualTo("finished - failed - unknown - contended");
    Map<String, String> statById = new TreeMap<>();
    for (Object metric : metrics.subList(1, metrics.size())) {
      Map<String, Object> stat = map(map(metric).get("MetricStat"));
      String name = (String) map(stat.get("Metric")).get("MetricName");
      statById.put(
          (String) map(metric).get("Id"), name + " " + stat.get("Stat") + " " + stat.get("Period"));
    }
    assertThat(statById)
        .isEqualTo(
            Map.of(
                "finished",
                "JobsCommitted SampleCount 86400",
                "failed",
                "JobsFailed Sum 86400",
                "unknown",
                "JobsUnknown Sum 86400",
                "contended",
                "JobsContended Sum 86400"));
    assertThat(stack.compaction.stalenessAlarms().get("analytics.orders").getAlarmDescription())
        .contains("without FAILED, UNKNOWN or CONTENDED");
  }

  @Test
  void theDashboardFillsInThisStacksStateMachinesAndFunctions() throws IOException {
    Map<String, Object> dashboard = props(map(resources.get("OperationsDashboard")));
    assertThat(dashboard.get("DashboardName")).isEqualTo("icecompact-${AWS::StackName}");
    assertThat((String) dashboard.get("DashboardBody"))
        .contains(
            "\"${CompactionStateMachine}\"",
            "\"${SweepStateMachine}\"",
            "\"${RewriteGroupFunction}\"",
            "\"${AWS::Region}\"")
        .doesNotContain("${Token");
    Map<String, String> outcomes = new TreeMap<>();
    new ObjectMapper()
        .readTree((String) dashboard.get("DashboardBody"))
        .get("widgets")
        .forEach(
            w -> {
              if (w.path("properties").path("title").asText().equals("Job outcomes, all tables")) {
                w.path("properties")
                    .path("metrics")
                    .forEach(
                        m ->
                            outcomes.put(
                                m.get(0).get("label").asText(),
                                m.get(0).get("expression").asText()));
              }
            });
    assertThat(outcomes).containsOnlyKeys("committed", "partial", "failed", "unknown", "contended");
    assertThat(outcomes.get("contended")).contains("MetricName=\"JobsContended\"");
    assertThat(stack.compaction.dashboard()).isNotNull();
  }

  @Test
  void aStackNameTooLongForTheStateMachineNamesFailsWithAMessage() {
    software.amazon.awscdk.App app = new software.amazon.awscdk.App();
    software.amazon.awscdk.Stack longName =
        new software.amazon.awscdk.Stack(
            app,
            "Long",
            software.amazon.awscdk.StackProps.builder().stackName("x".repeat(70)).build());
    IcebergCompactionProps props =
        IcebergCompactionProps.builder()
            .warehouseBucket(
                software.amazon.awscdk.services.s3.Bucket.fromBucketName(
                    longName, "W", "my-warehouse"))
            .catalog(IcebergCatalog.glue("analytics"))
            .functionCode(FunctionCode.fromBuiltJars(StandInJars.create()))
            .build();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new IcebergCompaction(longName, "Compaction", props))
        .hasMessageContaining(
            "the stack name '"
                + "x".repeat(70)
                + "' has 70 characters but names the state machines")
        .hasMessageContaining("set 'name' to a shorter one");
  }

  static Map<String, Object> tlsOnly(String action, Object resource) {
    return Map.of(
        "Effect",
        "Deny",
        "Principal",
        Map.of("AWS", "*"),
        "Action",
        action,
        "Resource",
        resource,
        "Condition",
        Map.of("Bool", Map.of("aws:SecureTransport", "false")));
  }

  @Test
  void theLeaseTableIsOnDemandWithPointInTimeRecoveryAndStringKeysAndIsKept() {
    Map<String, Object> table = map(resources.get("LeaseTable"));
    assertThat(props(table))
        .isEqualTo(
            Map.of(
                "BillingMode", "PAY_PER_REQUEST",
                "AttributeDefinitions",
                    List.of(
                        Map.of("AttributeName", "pk", "AttributeType", "S"),
                        Map.of("AttributeName", "sk", "AttributeType", "S")),
                "KeySchema",
                    List.of(
                        Map.of("AttributeName", "pk", "KeyType", "HASH"),
                        Map.of("AttributeName", "sk", "KeyType", "RANGE")),
                "PointInTimeRecoverySpecification", Map.of("PointInTimeRecoveryEnabled", true),
                "SSESpecification", Map.of("SSEEnabled", true),
                // job log entries expire (JobLog.EXPIRES_AT); lease items have no such attribute
                "TimeToLiveSpecification",
                    Map.of("AttributeName", "expires_at_epoch_s", "Enabled", true)));
    assertThat(table.get("DeletionPolicy")).isEqualTo("Retain");
    assertThat(table.get("UpdateReplacePolicy")).isEqualTo("Retain");
  }

  @Test
  void theWorkBucketExpiresJobArtefactsAndIsPrivate() {
    Map<String, Object> bucket = props(map(resources.get("WorkBucket")));
    assertThat(bucket.get("LifecycleConfiguration"))
        .isEqualTo(
            Map.of(
                "Rules",
                List.of(
                    Map.of(
                        "Id", "ExpireJobArtefacts",
                        "Status", "Enabled",
                        "Prefix", "icecompact/jobs/",
                        "ExpirationInDays", 14,
                        "AbortIncompleteMultipartUpload", Map.of("DaysAfterInitiation", 1)))));
    assertThat(bucket.get("PublicAccessBlockConfiguration"))
        .isEqualTo(
            Map.of(
                "BlockPublicAcls",
                true,
                "BlockPublicPolicy",
                true,
                "IgnorePublicAcls",
                true,
                "RestrictPublicBuckets",
                true));
    assertThat(bucket.get("OwnershipControls"))
        .isEqualTo(Map.of("Rules", List.of(Map.of("ObjectOwnership", "BucketOwnerEnforced"))));
    assertThat(bucket.get("BucketEncryption"))
        .isEqualTo(
            Map.of(
                "ServerSideEncryptionConfiguration",
                List.of(
                    Map.of("ServerSideEncryptionByDefault", Map.of("SSEAlgorithm", "AES256")))));
  }

  @Test
  void theDefinitionIsCompactionAslJsonByteForByte() throws IOException {
    byte[] file = Files.readAllBytes(RepositoryFiles.definitionFile());
    String deployed = (String) props(stateMachineResource()).get("DefinitionString");
    assertThat(deployed.getBytes(StandardCharsets.UTF_8)).isEqualTo(file);
  }

  @Test
  void theSubstitutionsCoverEveryPlaceholderWithItsFunctionsArn() {
    Set<String> placeholders = new TreeSet<>();
    Matcher m =
        Pattern.compile("\\$\\{([^}]+)}")
            .matcher(RepositoryFiles.read(RepositoryFiles.definitionFile()));
    while (m.find()) {
      placeholders.add(m.group(1));
    }
    Map<String, Object> substitutions =
        map(props(stateMachineResource()).get("DefinitionSubstitutions"));
    assertThat(placeholders).hasSize(7);
    assertThat(new TreeSet<>(substitutions.keySet())).isEqualTo(placeholders);
    for (CompactionFunction f : CompactionFunction.compactionSteps()) {
      assertThat(substitutions.get(f.step() + "FunctionArn"))
          .isEqualTo("${" + f.step() + "Function.Arn}");
    }
  }

  @Test
  void theStateMachineIsStandardAndNamedAfterTheStack() {
    Map<String, Object> p = props(stateMachineResource());
    assertThat(p.get("StateMachineName")).isEqualTo("${AWS::StackName}-compaction");
    assertThat(p.get("StateMachineType")).isEqualTo("STANDARD");
    assertThat(p.get("RoleArn")).isEqualTo("${CompactionStateMachineRole.Arn}");
    assertThat(p.keySet())
        .containsExactlyInAnyOrder(
            "DefinitionString",
            "DefinitionSubstitutions",
            "RoleArn",
            "StateMachineName",
            "StateMachineType",
            "LoggingConfiguration",
            "TracingConfiguration");
    assertThat(p.get("LoggingConfiguration"))
        .isEqualTo(errorLogging("CompactionStateMachineLogGroup"));
    assertThat(p.get("TracingConfiguration")).isEqualTo(Map.of("Enabled", false));
  }

  @Test
  void everyFunctionRoleHasExactlyItsActions() {
    for (CompactionFunction f : CompactionFunction.values()) {
      Map<String, Object> role = role(f.step() + "FunctionRole");
      assertThat(statementActionsOf(role)).as(f.name()).isEqualTo(GLUE_ACTIONS.get(f));
      assertThat(role.get("ManagedPolicyArns")).as(f.name()).isEqualTo(List.of(BASIC_EXECUTION));
      assertThat(statements(role.get("AssumeRolePolicyDocument")))
          .singleElement()
          .satisfies(
              s ->
                  assertThat(s.get("Principal"))
                      .isEqualTo(Map.of("Service", "lambda.amazonaws.com")));
    }
  }

  @Test
  void theFunctionsReachOnlyTheWarehouseTheWorkLocationAndTheCatalog() {
    Map<String, Object> committer = role("CommitSnapshotFunctionRole");
    Map<String, Set<String>> resourcesBySid = new TreeMap<>();
    statements(committer.get("Policies"))
        .forEach(s -> resourcesBySid.put((String) s.get("Sid"), strings(s.get("Resource"))));
    String s3 = "arn:${AWS::Partition}:s3:::";
    String glue = "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:";
    assertThat(resourcesBySid)
        .isEqualTo(
            Map.of(
                "LeaseCheck", Set.of("${LeaseTable.Arn}"),
                "WarehouseList", Set.of(s3 + "my-warehouse"),
                "WarehouseRead",
                    Set.of(
                        s3 + "my-warehouse/warehouse/*/metadata/*",
                        s3 + "my-warehouse/warehouse/*/data/*"),
                "WorkLocationList", Set.of(s3 + "${WorkBucket}"),
                "WorkLocationRead",
                    Set.of(
                        s3 + "${WorkBucket}/icecompact/jobs/*",
                        s3 + "my-warehouse/warehouse/*/_icecompact/*"),
                "GlueCatalogCommit",
                    Set.of(
                        glue + "catalog",
                        glue + "database/analytics",
                        glue + "table/analytics/*")));
    statements(committer.get("Policies")).stream()
        .filter(s -> s.get("Sid").toString().endsWith("List"))
        .forEach(
            s ->
                assertThat(s.get("Condition"))
                    .as("ListBucket is limited to the prefix")
                    .isIn(
                        Map.of("StringLike", Map.of("s3:prefix", "warehouse/*")),
                        Map.of("StringLike", Map.of("s3:prefix", "icecompact/jobs/*"))));
  }

  /**
   * No function role writes or deletes in S3: every stage that does assumes TableAccessRole with
   * the table's session policy. The role writes and deletes only in the tables' data/ and metadata/
   * folders and the work location; it holds the statements of the stages that assume it.
   */
  @Test
  void onlyTheTableAccessRoleWritesAndOnlyInDataMetadataAndTheWorkLocation() {
    for (CompactionFunction f : CompactionFunction.values()) {
      assertThat(statementActionsOf(role(f.step() + "FunctionRole")).values())
          .as(f.name())
          .allSatisfy(
              actions ->
                  assertThat(actions)
                      .noneMatch(
                          a ->
                              a.startsWith("s3:Put")
                                  || a.startsWith("s3:Delete")
                                  || a.equals("s3:AbortMultipartUpload")));
    }
    Map<String, Object> tableAccess = role("TableAccessRole");
    Map<String, Set<String>> writes = new TreeMap<>();
    for (Map<String, Object> s : statements(tableAccess.get("Policies"))) {
      for (String action : strings(s.get("Action"))) {
        if (action.startsWith("s3:Put")
            || action.startsWith("s3:Delete")
            || action.equals("s3:AbortMultipartUpload")) {
          writes.computeIfAbsent(action, k -> new TreeSet<>()).addAll(strings(s.get("Resource")));
        }
      }
    }
    String warehouse = "arn:${AWS::Partition}:s3:::my-warehouse/warehouse/*/";
    Set<String> folders =
        Set.of(
            warehouse + "data/*",
            warehouse + "metadata/*",
            "arn:${AWS::Partition}:s3:::${WorkBucket}/icecompact/jobs/*",
            warehouse + "_icecompact/*");
    assertThat(writes)
        .isEqualTo(
            Map.of(
                "s3:PutObject", folders,
                "s3:AbortMultipartUpload", folders,
                "s3:DeleteObject", folders));
    Map<String, Set<String>> granted = statementActionsOf(tableAccess);
    Map<String, Set<String>> care =
        new TreeMap<>(GLUE_ACTIONS.get(CompactionFunction.CARE_FOR_TABLE));
    care.remove("LeaseCheck");
    care.remove("WorkLocationRead");
    assertThat(granted).containsAllEntriesOf(care);
  }

  /**
   * A job without work_location keeps its artefacts under {@code <table
   * location>/_icecompact/<job>} (core's WorkLocation, whose DEFAULT_FOLDER FunctionPermissions
   * repeats): each function that reads or writes them may do so, and list, there; the lease
   * functions and AssessTables may not write there (issue 28).
   */
  @Test
  void theDefaultWorkLocationIsInsideWhatEachFunctionThatUsesItMayReadAndWrite() {
    assertThat(
            RepositoryFiles.read(
                RepositoryFiles.root()
                    .resolve("core/src/main/java/io/icecompact/core/job/WorkLocation.java")))
        .contains("DEFAULT_FOLDER = \"" + FunctionPermissions.DEFAULT_WORK_FOLDER + "\"");
    String job = "my-warehouse/warehouse/analytics.db/orders/_icecompact/job-1/";
    List<String> artefacts =
        List.of(
            "plan.json",
            "plan/group-00000.json",
            "results/group-00000.json",
            "results/group-00000.failed.json",
            "attempts/group-00000.attempt-1",
            "outputs/group-00000.attempt-1/output-x.parquet",
            "commits/commit-000.json",
            "result.json",
            "care.json");
    java.util.function.Function<Object, String> render =
        r -> r instanceof String t ? t.replace("${AWS::Partition}", "aws") : null;
    List<Map<String, Object>> tableAccess = statements(role("TableAccessRole").get("Policies"));
    for (CompactionFunction f :
        List.of(
            CompactionFunction.PLAN_REWRITE,
            CompactionFunction.REWRITE_GROUP,
            CompactionFunction.RECORD_GROUP_FAILURE,
            CompactionFunction.COMMIT_SNAPSHOT,
            CompactionFunction.CARE_FOR_TABLE)) {
      List<Map<String, Object>> statements =
          statements(role(f.step() + "FunctionRole").get("Policies"));
      for (String artefact : artefacts) {
        assertThat(
                io.icecompact.infra.PolicyStatements.allows(
                    statements, "s3:GetObject", "arn:aws:s3:::" + job + artefact, render))
            .as("%s: s3:GetObject on %s", f, artefact)
            .isTrue();
        assertThat(
                io.icecompact.infra.PolicyStatements.allows(
                    tableAccess, "s3:PutObject", "arn:aws:s3:::" + job + artefact, render))
            .as("TableAccessRole (%s's session): s3:PutObject on %s", f, artefact)
            .isTrue();
      }
      assertThat(
              io.icecompact.infra.PolicyStatements.allowsListing(
                  statements,
                  "arn:aws:s3:::my-warehouse",
                  job.substring("my-warehouse/".length()),
                  render))
          .as("%s: s3:ListBucket", f)
          .isTrue();
    }
    assertThat(
            io.icecompact.infra.PolicyStatements.allows(
                tableAccess, "s3:DeleteObject", "arn:aws:s3:::" + job + "plan.json", render))
        .isTrue();
    for (CompactionFunction f :
        List.of(
            CompactionFunction.ACQUIRE_LEASE,
            CompactionFunction.RELEASE_LEASE,
            CompactionFunction.ASSESS_TABLES)) {
      assertThat(
              io.icecompact.infra.PolicyStatements.allows(
                  statements(role(f.step() + "FunctionRole").get("Policies")),
                  "s3:PutObject",
                  "arn:aws:s3:::" + job + "plan.json",
                  render))
          .as(f.name())
          .isFalse();
    }
  }

  @Test
  void theWorkersHaveNoCatalogPermissionsAndOnlyTheWorkerKeepsTheLease() {
    for (CompactionFunction worker :
        List.of(CompactionFunction.REWRITE_GROUP, CompactionFunction.RECORD_GROUP_FAILURE)) {
      Map<String, Object> role = role(worker.step() + "FunctionRole");
      // the worker's one DynamoDB statement: extending the execution's own lease (LeaseHeartbeat)
      List<Map<String, Object>> catalogFree =
          statements(role.get("Policies")).stream()
              .filter(s -> !"LeaseHeartbeat".equals(s.get("Sid")))
              .toList();
      Set<String> actions = CfnMaps.actions(catalogFree);
      assertThat(actions)
          .as(worker.name())
          .isNotEmpty()
          .allSatisfy(
              action -> {
                assertThat(CATALOG_ACTION_PREFIXES).noneMatch(action::startsWith);
                assertThat(action).doesNotContain("*");
              });
      assertThat(catalogFree.toString())
          .as(worker.name())
          .doesNotContain("LeaseTable", "glue", "dynamodb");
      assertThat(role.get("ManagedPolicyArns")).isEqualTo(List.of(BASIC_EXECUTION));
    }
    assertThat(statementActionsOf(role("RewriteGroupFunctionRole")).get("LeaseHeartbeat"))
        .isEqualTo(Set.of("dynamodb:GetItem", "dynamodb:UpdateItem"));
  }

  @Test
  void theStateMachineMayInvokeOnlyItsOwnFunctions() {
    Map<String, Object> role = role("CompactionStateMachineRole");
    assertThat(role).doesNotContainKey("ManagedPolicyArns");
    List<Map<String, Object>> statements = statements(role.get("Policies"));
    Set<String> invoked = new TreeSet<>();
    for (Map<String, Object> s : statements) {
      Set<String> actions = strings(s.get("Action"));
      if (actions.stream().anyMatch(a -> a.startsWith("lambda:"))) {
        assertThat(actions).containsExactly("lambda:InvokeFunction");
        invoked.addAll(strings(s.get("Resource")));
      }
    }
    Set<String> ownFunctions = new TreeSet<>();
    for (CompactionFunction f : CompactionFunction.compactionSteps()) {
      ownFunctions.add("${" + f.step() + "Function.Arn}");
    }
    assertThat(invoked).isEqualTo(ownFunctions);

    String name = (String) props(stateMachineResource()).get("StateMachineName");
    String states = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:";
    assertThat(statementActionsOf(role))
        .isEqualTo(
            Map.of(
                "InvokeTheCompactionFunctions", Set.of("lambda:InvokeFunction"),
                "DistributedMapStartChildExecutions", Set.of("states:StartExecution"),
                "DistributedMapManageChildExecutions",
                    Set.of("states:DescribeExecution", "states:StopExecution"),
                // Step Functions' log delivery, whose actions take no resource; no X-Ray without
                // tracing.
                "LogDelivery",
                    Set.of(
                        "logs:CreateLogDelivery",
                        "logs:GetLogDelivery",
                        "logs:UpdateLogDelivery",
                        "logs:DeleteLogDelivery",
                        "logs:ListLogDeliveries",
                        "logs:PutResourcePolicy",
                        "logs:DescribeResourcePolicies",
                        "logs:DescribeLogGroups")));
    for (Map<String, Object> s : statements) {
      if (s.get("Sid").equals("DistributedMapStartChildExecutions")) {
        assertThat(s.get("Resource")).isEqualTo(states + "stateMachine:" + name);
      }
      if (s.get("Sid").equals("DistributedMapManageChildExecutions")) {
        assertThat(s.get("Resource")).isEqualTo(states + "execution:" + name + "/*");
      }
    }
  }

  @Test
  void theSweepRunsSweepAslJsonWithAssessTablesAndTheCompactionStateMachine() throws IOException {
    Map<String, Object> p = props(map(resources.get("SweepStateMachine")));
    assertThat(p.get("StateMachineName")).isEqualTo("${AWS::StackName}-sweep");
    assertThat(p.get("StateMachineType")).isEqualTo("STANDARD");
    assertThat(p.get("RoleArn")).isEqualTo("${SweepStateMachineRole.Arn}");
    assertThat(p.get("LoggingConfiguration")).isEqualTo(errorLogging("SweepStateMachineLogGroup"));
    assertThat(p.get("TracingConfiguration")).isEqualTo(Map.of("Enabled", false));
    byte[] file =
        Files.readAllBytes(RepositoryFiles.root().resolve("state-machine/sweep.asl.json"));
    assertThat(((String) p.get("DefinitionString")).getBytes(StandardCharsets.UTF_8))
        .isEqualTo(file);
    assertThat(p.get("DefinitionSubstitutions"))
        .isEqualTo(
            Map.of(
                "AssessTablesFunctionArn", "${AssessTablesFunction.Arn}",
                "CompactionStateMachineArn", "${CompactionStateMachine}"));
    assertThat(stack.compaction.sweepStateMachine()).isNotNull();
  }

  /**
   * Least privilege for startExecution.sync:2: every resource named, no '*' beyond an execution
   * name.
   */
  @Test
  void theSweepMayOnlyInvokeAssessTablesAndRunAndFollowCompactions() {
    Map<String, Object> role = role("SweepStateMachineRole");
    assertThat(role).doesNotContainKey("ManagedPolicyArns");
    String arn = "arn:${AWS::Partition}:";
    Map<String, Object> bySid = new TreeMap<>();
    statements(role.get("Policies")).stream()
        .filter(s -> !s.get("Sid").equals("LogDelivery"))
        .forEach(
            s ->
                bySid.put(
                    (String) s.get("Sid"),
                    List.of(strings(s.get("Action")), strings(s.get("Resource")))));
    assertThat(bySid)
        .isEqualTo(
            Map.of(
                "InvokeAssessTables",
                    List.of(Set.of("lambda:InvokeFunction"), Set.of("${AssessTablesFunction.Arn}")),
                "StartCompactionExecutions",
                    List.of(Set.of("states:StartExecution"), Set.of("${CompactionStateMachine}")),
                "ManageCompactionExecutions",
                    List.of(
                        Set.of("states:DescribeExecution", "states:StopExecution"),
                        Set.of(
                            arn
                                + "states:${AWS::Region}:${AWS::AccountId}:execution:${AWS::StackName}-compaction:*")),
                "SyncExecutionEvents",
                    List.of(
                        Set.of("events:PutTargets", "events:PutRule", "events:DescribeRule"),
                        Set.of(
                            arn
                                + "events:${AWS::Region}:${AWS::AccountId}:rule/"
                                + "StepFunctionsGetEventsForStepFunctionsExecutionRule"))));
  }

  @Test
  void theSweepScheduleStartsTheSweepWithItsNamespacesAndTheTablesCatalog() throws IOException {
    Map<String, Object> schedule =
        SamParityTest.schedulesByDescription(resources)
            .get("icecompact: sweep analytics,sales.raw");
    assertThat(schedule.get("ScheduleExpression")).isEqualTo("rate(1 day)");
    assertThat(schedule.get("ScheduleExpressionTimezone")).isEqualTo("UTC");
    Map<String, Object> target = map(schedule.get("Target"));
    assertThat(target.get("Arn")).isEqualTo("${SweepStateMachine}");
    assertThat(target.get("RoleArn")).isEqualTo("${SweepSchedulerRole.Arn}");
    String input = ((String) target.get("Input")).replace("${WorkBucket}", "work-bucket");
    assertThat(new ObjectMapper().readValue(input, Map.class))
        .isEqualTo(
            Map.of(
                "catalog_properties",
                Map.of("type", "glue", "warehouse", "s3://my-warehouse/warehouse/"),
                "namespaces",
                List.of("analytics", "sales.raw"),
                "max_tables",
                10,
                "max_concurrent_tables",
                4,
                "work_location",
                "s3://work-bucket/icecompact/jobs/"));

    Map<String, Object> role = role("SweepSchedulerRole");
    assertThat(statements(role.get("Policies")))
        .hasSize(2)
        .first()
        .satisfies(
            s -> {
              assertThat(s.get("Action")).isEqualTo("states:StartExecution");
              assertThat(s.get("Resource")).isEqualTo("${SweepStateMachine}");
            });
    assertThat(statements(role.get("Policies")).get(1))
        .containsEntry("Sid", "DeadLetters")
        .containsEntry("Action", "sqs:SendMessage");
    assertThat(role.get("AssumeRolePolicyDocument"))
        .isEqualTo(role("SchedulerRole").get("AssumeRolePolicyDocument"));
    assertThat(stack.compaction.sweepSchedule()).isPresent();
  }

  @Test
  void withoutSweepNamespacesThereIsNoSweepScheduleButTheSweepIsDeployed() {
    SynthesizedCompaction noSweep =
        SynthesizedCompaction.of(
            (scope, props) -> props.sweepSchedule("rate(2 days)").sweepMaxTables(3));
    Map<String, Object> r = noSweep.resolved().resources();
    assertThat(r)
        .doesNotContainKeys("SweepNamespacesSchedule", "SweepSchedulerRole")
        .containsKeys(
            "SweepStateMachine",
            "SweepStateMachineRole",
            "AssessTablesFunction",
            "SweepExecutionsFailedAlarm");
    assertThat(CfnMaps.ofType(r, "AWS::Scheduler::Schedule")).isEmpty();
    assertThat(noSweep.compaction.sweepSchedule()).isEmpty();
  }

  @Test
  void theSchedulerMayOnlyStartThisStateMachine() {
    Map<String, Object> role = role("SchedulerRole");
    assertThat(statements(role.get("Policies")))
        .hasSize(2)
        .first()
        .satisfies(
            s -> {
              assertThat(s.get("Action")).isEqualTo("states:StartExecution");
              assertThat(s.get("Resource")).isEqualTo("${CompactionStateMachine}");
            });
    assertThat(statements(role.get("Policies")).get(1))
        .isEqualTo(
            Map.of(
                "Sid",
                "DeadLetters",
                "Effect",
                "Allow",
                "Action",
                "sqs:SendMessage",
                "Resource",
                "${ScheduleDeadLetterQueue.Arn}"));
    assertThat(statements(role.get("AssumeRolePolicyDocument")))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.get("Principal"))
                  .isEqualTo(Map.of("Service", "scheduler.amazonaws.com"));
              assertThat(s.get("Condition"))
                  .isEqualTo(
                      Map.of("StringEquals", Map.of("aws:SourceAccount", "${AWS::AccountId}")));
            });
  }

  @Test
  void eachTableHasAScheduleStartingTheStateMachineWithAValidExecutionInput() throws IOException {
    Map<String, Map<String, Object>> byDescription = new TreeMap<>();
    CfnMaps.ofType(resources, "AWS::Scheduler::Schedule")
        .values()
        .forEach(r -> byDescription.put((String) props(r).get("Description"), props(r)));
    byDescription.remove("icecompact: sweep analytics,sales.raw");
    assertThat(byDescription.keySet())
        .containsExactly(
            "icecompact: compact analytics.events", "icecompact: compact analytics.orders");

    Map<String, Object> orders = byDescription.get("icecompact: compact analytics.orders");
    assertThat(orders.get("ScheduleExpression")).isEqualTo("rate(6 hours)");
    assertThat(byDescription.get("icecompact: compact analytics.events").get("ScheduleExpression"))
        .isEqualTo("cron(0 3 * * ? *)");
    ObjectMapper json = new ObjectMapper();
    for (Map<String, Object> schedule : byDescription.values()) {
      assertThat(schedule.get("ScheduleExpressionTimezone")).isEqualTo("UTC");
      assertThat(schedule.get("FlexibleTimeWindow"))
          .isEqualTo(Map.of("Mode", "FLEXIBLE", "MaximumWindowInMinutes", 15));
      Map<String, Object> target = map(schedule.get("Target"));
      assertThat(target.get("Arn")).isEqualTo("${CompactionStateMachine}");
      assertThat(target.get("RoleArn")).isEqualTo("${SchedulerRole.Arn}");
      String input = ((String) target.get("Input")).replace("${WorkBucket}", "work-bucket");
      assertThat(ExecutionInputSchema.problems(input)).as(input).isEmpty();
    }

    Map<String, Object> glue = Map.of("type", "glue", "warehouse", "s3://my-warehouse/warehouse/");
    assertThat(json.readValue(input("analytics.orders", byDescription), Map.class))
        .isEqualTo(
            Map.of(
                "table",
                "analytics.orders",
                "catalog_properties",
                glue,
                "options",
                Map.of("min-input-files", "2"),
                // the work prefix, as the sweep's: the job appends the table itself (core's
                // WorkLocation)
                "work_location",
                "s3://work-bucket/icecompact/jobs/"));
    assertThat(json.readValue(input("analytics.events", byDescription), Map.class))
        .isEqualTo(
            Map.of(
                "table",
                "analytics.events",
                "catalog_properties",
                glue,
                "options",
                Map.of(),
                "where",
                "day >= '2026-01-01'",
                "work_location",
                "s3://work-bucket/icecompact/jobs/",
                "max_concurrency",
                8,
                "lease_ttl_seconds",
                3600));
    assertThat(stack.compaction.schedules())
        .containsOnlyKeys("analytics.orders", "analytics.events");
  }

  @Test
  void theAlarmsWatchTheStateMachineAndTheJobLineAndNotifyTheTopic() {
    Map<String, Object> failed = props(map(resources.get("ExecutionsFailedAlarm")));
    Map<String, Object> timedOut = props(map(resources.get("ExecutionsTimedOutAlarm")));
    for (Map<String, Object> alarm : List.of(failed, timedOut)) {
      assertThat(alarm)
          .containsEntry("Namespace", "AWS/States")
          .containsEntry(
              "Dimensions",
              List.of(Map.of("Name", "StateMachineArn", "Value", "${CompactionStateMachine}")))
          .containsEntry("Statistic", "Sum")
          .containsEntry("Period", 300)
          .containsEntry("EvaluationPeriods", 1)
          .containsEntry("Threshold", 1)
          .containsEntry("ComparisonOperator", "GreaterThanOrEqualToThreshold")
          .containsEntry("TreatMissingData", "notBreaching");
    }
    assertThat(failed.get("MetricName")).isEqualTo("ExecutionsFailed");
    Map<String, Object> sweepFailed =
        new TreeMap<>(props(map(resources.get("SweepExecutionsFailedAlarm"))));
    assertThat(sweepFailed.remove("Dimensions"))
        .isEqualTo(List.of(Map.of("Name", "StateMachineArn", "Value", "${SweepStateMachine}")));
    Map<String, Object> failedWithoutDimensions = new TreeMap<>(failed);
    failedWithoutDimensions.remove("Dimensions");
    sweepFailed.remove("AlarmDescription");
    failedWithoutDimensions.remove("AlarmDescription");
    assertThat(sweepFailed).isEqualTo(failedWithoutDimensions);
    assertThat(timedOut.get("MetricName")).isEqualTo("ExecutionsTimedOut");

    Map<String, Object> filter = props(map(resources.get("UnknownOrPartialJobsMetricFilter")));
    assertThat(filter.get("LogGroupName")).isEqualTo("${ReleaseLeaseLogGroup}");
    assertThat((String) filter.get("FilterPattern"))
        .contains(
            "$.icecompact = \"job\"",
            "$.status = \"UNKNOWN\"",
            "$.status = \"PARTIAL\"",
            "$.status = \"CONTENDED\"");
    Map<String, Object> transformation = map(list(filter.get("MetricTransformations")).get(0));
    assertThat(transformation)
        .isEqualTo(
            Map.of(
                "MetricNamespace",
                "icecompact",
                "MetricName",
                "${AWS::StackName}-JobsUnknownOrPartial",
                "MetricValue",
                "1",
                "Unit",
                "Count"));
    Map<String, Object> partial = props(map(resources.get("UnknownOrPartialJobsAlarm")));
    assertThat(partial)
        .containsEntry("Namespace", "icecompact")
        .containsEntry("MetricName", transformation.get("MetricName"))
        .containsEntry("Period", 21600)
        .containsEntry("Threshold", 3)
        .containsEntry("Statistic", "Sum");
    // The line the filter reads is written by ReleaseLeaseHandler.
    assertThat(
            RepositoryFiles.read(
                RepositoryFiles.root()
                    .resolve(
                        "lease-fn/src/main/java/io/icecompact/lease/lambda/ReleaseLeaseHandler.java")))
        .contains("line.put(\"icecompact\", \"job\")", "line.put(\"status\"");

    for (Map<String, Object> alarm : List.of(failed, timedOut, partial)) {
      assertThat(alarm.get("AlarmActions")).isEqualTo(List.of(TOPIC));
    }
  }

  /**
   * cfn-lint also checks the definition here (SAM keeps it in a file cfn-lint does not read). It
   * reports OutputPath in a Succeed state, which the States Language allows (Succeed takes
   * InputPath and OutputPath): that finding alone is let through, for the two Succeed states that
   * use it. W3005 is off: the CDK adds a DependsOn on each function's role that the function's
   * GetAtt of the role already implies.
   */
  @Test
  void cfnLintAcceptsTheSynthesizedTemplate() throws Exception {
    String cfnLint = onPath("cfn-lint");
    Assumptions.assumeTrue(
        cfnLint != null, "cfn-lint is not on PATH: skipping the lint of the synthesized template");
    Path file = stack.outdir.resolve("linted.template.json");
    new ObjectMapper().writeValue(file.toFile(), stack.json);
    // The template before the options: --ignore-checks takes several values, and cfn-lint reads
    // stdin without a file.
    Path report = stack.outdir.resolve("cfn-lint.txt");
    Process process =
        new ProcessBuilder(
                cfnLint, file.toString(), "--format", "parseable", "--ignore-checks", "W3005")
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(report.toFile())
            .redirectErrorStream(true)
            .start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("cfn-lint did not finish within 5 minutes");
    }
    String output = Files.readString(report, StandardCharsets.UTF_8);
    Pattern succeedOutputPath =
        Pattern.compile(
            ".*:E3601:.*'OutputPath' was unexpected\\) at 'States/(LeaseHeld|Done)/OutputPath'.*");
    List<String> findings =
        output
            .lines()
            .filter(line -> !line.isBlank())
            .filter(line -> !succeedOutputPath.matcher(line).matches())
            .toList();
    assertThat(findings).as("cfn-lint output:%n%s", output).isEmpty();
    assertThat(process.exitValue()).as("cfn-lint output:%n%s", output).isIn(0, 2);
    assertThat(RepositoryFiles.read(RepositoryFiles.definitionFile()))
        .contains(
            "\"LeaseHeld\": {\n      \"Type\": \"Succeed\"",
            "\"Done\": {\n      \"Type\": \"Succeed\"");
  }

  // ------------------------------------------------------------------ helpers

  static Map<String, Object> function(CompactionFunction f) {
    Map<String, Object> resource = map(resources.get(f.step() + "Function"));
    assertThat(resource.get("Type")).isEqualTo("AWS::Lambda::Function");
    return props(resource);
  }

  static Map<String, Object> role(String id) {
    Map<String, Object> resource = map(resources.get(id));
    assertThat(resource).as(id).isNotNull();
    assertThat(resource.get("Type")).isEqualTo("AWS::IAM::Role");
    return props(resource);
  }

  static Map<String, Object> stateMachineResource() {
    return map(resources.get("CompactionStateMachine"));
  }

  /** Sid → actions of a role's inline policies. */
  static Map<String, Set<String>> statementActionsOf(Map<String, Object> role) {
    Map<String, Set<String>> out = new TreeMap<>();
    statements(role.get("Policies"))
        .forEach(
            s -> {
              assertThat(s.get("Effect")).isEqualTo("Allow");
              assertThat(out.put((String) s.get("Sid"), strings(s.get("Action"))))
                  .as("Sid " + s.get("Sid") + " twice")
                  .isNull();
            });
    return out;
  }

  private static String input(String table, Map<String, Map<String, Object>> byDescription) {
    return ((String)
            map(byDescription.get("icecompact: compact " + table).get("Target")).get("Input"))
        .replace("${WorkBucket}", "work-bucket");
  }

  static String onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, command);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
