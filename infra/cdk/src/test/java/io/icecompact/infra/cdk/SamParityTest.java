package io.icecompact.infra.cdk;

import static io.icecompact.infra.cdk.CfnMaps.list;
import static io.icecompact.infra.cdk.CfnMaps.map;
import static io.icecompact.infra.cdk.CfnMaps.props;
import static io.icecompact.infra.cdk.CfnMaps.statements;
import static io.icecompact.infra.cdk.CfnMaps.strings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.infra.CfnYaml;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.ManagedPolicy;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.sns.Topic;

/**
 * The CDK stack against infra/template.yaml, for equivalent settings: both templates are resolved
 * (parameters filled in, conditions decided, intrinsics rendered) and compared resource by resource
 * on what matters: functions, every role's statements (Sid, actions, resources, conditions) and
 * managed policies, the state machine, the lease table, the work bucket, log groups, schedules and
 * alarms. The SAM side gets what the SAM transform adds to what is compared (Globals, a role per
 * function with AWSLambdaBasicExecutionRole, a role for the state machine).
 */
class SamParityTest {
  static final String TOPIC = "arn:aws:sns:eu-west-1:123456789012:icecompact-alarms";
  static final String CATALOG_POLICY = "arn:aws:iam::123456789012:policy/icecompact-catalog";
  static final String KMS_POLICY = "arn:aws:iam::123456789012:policy/warehouse-kms";
  static final String KMS_KEY =
      "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
  static final String WORK_KMS_KEY =
      "arn:aws:kms:eu-west-1:123456789012:key/5678abcd-12ab-34cd-56ef-1234567890ab";
  static final String BASIC_EXECUTION =
      "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole";

  /** One setting of both: the SAM parameters and the construct's props that mean the same. */
  record Case(
      String name,
      Map<String, Object> samParameters,
      BiConsumer<Stack, IcebergCompactionProps.Builder> props) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "glue, created work bucket, alarm topic, a sweep of two namespaces",
            mapOf(
                "WarehouseBucket",
                "my-warehouse",
                "GlueDatabase",
                SynthesizedCompaction.GLUE_DATABASE,
                "Table1",
                "analytics.orders",
                "Table1Schedule",
                "rate(6 hours)",
                "ScheduleOptionsJson",
                "{\"min-input-files\": \"2\"}",
                "AlarmTopicArn",
                TOPIC,
                "SweepNamespaces",
                "analytics,sales.raw",
                "SweepSchedule",
                "cron(0 2 * * ? *)",
                "SweepMaxTables",
                25,
                "SweepMaxConcurrentTables",
                6,
                "SweepCareSteps",
                "rewrite-manifests,expire-snapshots,remove-orphans"),
            (stack, p) ->
                p.table(
                        ScheduledTable.builder("analytics.orders", "rate(6 hours)")
                            .option("min-input-files", "2")
                            .build())
                    .alarmTopic(Topic.fromTopicArn(stack, "Alarms", TOPIC))
                    .sweepNamespaces(List.of("analytics", "sales.raw"))
                    .sweepSchedule("cron(0 2 * * ? *)")
                    .sweepMaxTables(25)
                    .sweepMaxConcurrentTables(6)
                    .sweepCareSteps(
                        List.of("rewrite-manifests", "expire-snapshots", "remove-orphans"))),
        new Case(
            "dynamodb catalog, existing work bucket, access policy, sizes, DEBUG logs",
            mapOf(
                "WarehouseBucket",
                "my-warehouse",
                "WarehousePrefix",
                "lake/",
                "CatalogType",
                "dynamodb",
                "CatalogDynamoDbTable",
                "iceberg_catalog",
                "CatalogAccessPolicyArn",
                CATALOG_POLICY,
                "ExistingWorkBucket",
                "shared-work",
                "WorkPrefix",
                "compaction/",
                "Table1",
                "db.events",
                "Table1Schedule",
                "cron(0 3 * * ? *)",
                "ScheduleTimezone",
                "Europe/Berlin",
                "LogRetentionDays",
                90,
                "UnknownOrPartialThreshold",
                5,
                "WorkerMemorySize",
                10240,
                "LogLevel",
                "DEBUG",
                "SweepNamespaces",
                "db",
                "WorkerReservedConcurrency",
                40,
                "RewriteGroupExtraPolicyArn",
                KMS_POLICY,
                "CommitSnapshotExtraPolicyArn",
                KMS_POLICY,
                "StateMachineLogLevel",
                "ALL",
                "StateMachineTracing",
                "true",
                "StaleAfterDays",
                7,
                "SweepCareSteps",
                "none",
                "WarehouseKmsKeyArns",
                KMS_KEY + "," + WORK_KMS_KEY),
            (stack, p) ->
                p.warehousePrefix("lake/")
                    .catalog(IcebergCatalog.dynamoDb("iceberg_catalog"))
                    .catalogAccessPolicy(
                        ManagedPolicy.fromManagedPolicyArn(stack, "CatalogPolicy", CATALOG_POLICY))
                    .workBucket(Bucket.fromBucketName(stack, "SharedWork", "shared-work"))
                    .workPrefix("compaction/")
                    .table(ScheduledTable.of("db.events", "cron(0 3 * * ? *)"))
                    .scheduleTimezone("Europe/Berlin")
                    .logRetention(RetentionDays.THREE_MONTHS)
                    .unknownOrPartialThreshold(5)
                    .logLevel(ApplicationLogLevel.DEBUG)
                    .functionSize(
                        CompactionFunction.REWRITE_GROUP,
                        CompactionFunction.REWRITE_GROUP.defaultSize().withMemoryMb(10240))
                    .sweepNamespaces(List.of("db"))
                    .sweepCareSteps(List.of())
                    .workerReservedConcurrency(40)
                    .stateMachineLogLevel(
                        software.amazon.awscdk.services.stepfunctions.LogLevel.ALL)
                    .stateMachineTracing(true)
                    .staleAfterDays(7)
                    .extraPolicy(
                        CompactionFunction.REWRITE_GROUP,
                        ManagedPolicy.fromManagedPolicyArn(stack, "WorkerKms", KMS_POLICY))
                    .extraPolicy(
                        CompactionFunction.COMMIT_SNAPSHOT,
                        ManagedPolicy.fromManagedPolicyArn(stack, "CommitterKms", KMS_POLICY))
                    .warehouseKmsKeyArns(List.of(KMS_KEY, WORK_KMS_KEY))),
        new Case(
            "rest catalog with its properties, a Glue database that is not used",
            Map.of(
                "WarehouseBucket",
                "my-warehouse",
                "CatalogType",
                "rest",
                "GlueDatabase",
                "analytics",
                "CatalogPropertiesJson",
                "{\"type\": \"rest\", \"uri\": \"https://catalog.example.com/iceberg\"}",
                "Table1",
                "analytics.orders"),
            (stack, p) ->
                p.catalog(
                        IcebergCatalog.rest(
                            Map.of("type", "rest", "uri", "https://catalog.example.com/iceberg")))
                    .table(ScheduledTable.of("analytics.orders", "rate(1 day)"))));
  }

  static Map<String, Object> sam;
  static final Map<String, Map<String, Object>> SAM_RESOLVED = new TreeMap<>();
  static final Map<String, Map<String, Object>> CDK_RESOLVED = new TreeMap<>();

  @BeforeAll
  static void load() throws IOException {
    sam = CfnYaml.load(RepositoryFiles.samTemplate());
    Map<String, Object> samWithGlobals = withGlobalEnvironment(sam);
    cases()
        .forEach(
            c -> {
              SAM_RESOLVED.put(
                  c.name(),
                  transformedSam(
                      new ResolvedTemplate(samWithGlobals, c.samParameters(), id -> id)
                          .resources()));
              CDK_RESOLVED.put(
                  c.name(), SynthesizedCompaction.of(c.props()).resolved().resources());
            });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameResourcesOfEachType(Case c) {
    assertThat(typeCounts(cdk(c))).isEqualTo(typeCounts(sam(c)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameFunctions(Case c) {
    for (CompactionFunction f : CompactionFunction.values()) {
      String id = f.step() + "Function";
      Map<String, Object> samFunction = props(map(sam(c).get(id)));
      Map<String, Object> cdkFunction = props(map(cdk(c).get(id)));
      for (String key :
          List.of(
              "Runtime",
              "Architectures",
              "Handler",
              "MemorySize",
              "Timeout",
              "EphemeralStorage",
              "Description",
              "Environment",
              "LoggingConfig",
              "TracingConfig",
              "ReservedConcurrentExecutions")) {
        assertThat(comparable(key, cdkFunction.get(key)))
            .as(id + " " + key)
            .isEqualTo(comparable(key, samFunction.get(key)));
      }
      assertThat(samFunction)
          .as(id)
          .containsKeys(
              "Runtime",
              "Architectures",
              "Handler",
              "MemorySize",
              "Timeout",
              "LoggingConfig",
              "TracingConfig");
      assertThat(samFunction.get("CodeUri"))
          .as(id)
          .isEqualTo("../" + f.module() + "/target/" + FunctionCode.jarName(f.module()));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameStatementsAndManagedPoliciesInEveryRole(Case c) {
    Map<String, Object> samResources = sam(c);
    Map<String, Object> cdkResources = cdk(c);
    List<String> roles = CfnMaps.ofType(samResources, "AWS::IAM::Role").keySet().stream().toList();
    // One per function (8), each state machine's, the table schedules' and, with sweep namespaces,
    // the sweep's, and the table-access role.
    assertThat(roles)
        .hasSize(hasSweepSchedule(c) ? 13 : 12)
        .containsExactlyInAnyOrderElementsOf(
            CfnMaps.ofType(cdkResources, "AWS::IAM::Role").keySet());
    for (String role : roles) {
      Map<String, Object> samRole = props(map(samResources.get(role)));
      Map<String, Object> cdkRole = props(map(cdkResources.get(role)));
      assertThat(comparable(samRole.get("Policies"))).as(role).isNotEmpty();
      assertThat(comparable(cdkRole.get("Policies")))
          .as(role)
          .isEqualTo(comparable(samRole.get("Policies")));
      assertThat(strings(cdkRole.getOrDefault("ManagedPolicyArns", List.of())))
          .as(role)
          .isEqualTo(strings(samRole.getOrDefault("ManagedPolicyArns", List.of())));
      assertThat(comparable(cdkRole.get("AssumeRolePolicyDocument")))
          .as(role)
          .isEqualTo(comparable(samRole.get("AssumeRolePolicyDocument")));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameStateMachines(Case c) {
    for (String id : List.of("CompactionStateMachine", "SweepStateMachine")) {
      Map<String, Object> samMachine = props(map(sam(c).get(id)));
      Map<String, Object> cdkMachine = props(map(cdk(c).get(id)));
      assertThat(cdkMachine.get("StateMachineName")).as(id).isEqualTo(samMachine.get("Name"));
      assertThat(cdkMachine.get("StateMachineType")).as(id).isEqualTo(samMachine.get("Type"));
      assertThat(map(samMachine.get("DefinitionSubstitutions"))).as(id).isNotEmpty();
      assertThat(cdkMachine.get("DefinitionSubstitutions"))
          .as(id)
          .isEqualTo(samMachine.get("DefinitionSubstitutions"));
      String definition =
          RepositoryFiles.read(
              RepositoryFiles.samTemplate()
                  .getParent()
                  .resolve((String) samMachine.get("DefinitionUri"))
                  .normalize());
      assertThat(cdkMachine.get("DefinitionString")).as(id).isEqualTo(definition);
      assertThat(map(samMachine.get("Logging")))
          .as(id)
          .containsEntry("IncludeExecutionData", false);
      assertThat(cdkMachine.get("LoggingConfiguration"))
          .as(id)
          .isEqualTo(samMachine.get("Logging"));
      assertThat(cdkMachine.get("TracingConfiguration"))
          .as(id)
          .isEqualTo(samMachine.get("Tracing"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameTableBucketAndLogGroups(Case c) {
    List<String> ids =
        Stream.concat(
                Stream.of(
                    "LeaseTable",
                    "WorkBucket",
                    "WorkBucketPolicy",
                    "ScheduleDeadLetterQueue",
                    "ScheduleDeadLetterQueuePolicy"),
                Stream.concat(
                    Stream.of("CompactionStateMachineLogGroup", "SweepStateMachineLogGroup"),
                    Stream.of(CompactionFunction.values()).map(f -> f.step() + "LogGroup")))
            .toList();
    for (String id : ids) {
      Map<String, Object> samResource = map(sam(c).get(id));
      Map<String, Object> cdkResource = map(cdk(c).get(id));
      if (samResource == null) {
        assertThat(cdkResource).as(id).isNull();
        continue;
      }
      assertThat(map(samResource.get("Properties"))).as(id).isNotEmpty();
      assertThat(cdkResource.get("Properties")).as(id).isEqualTo(samResource.get("Properties"));
      assertThat(cdkResource.getOrDefault("DeletionPolicy", "Delete"))
          .as(id)
          .isEqualTo(samResource.getOrDefault("DeletionPolicy", "Delete"));
      assertThat(cdkResource.getOrDefault("UpdateReplacePolicy", "Delete"))
          .as(id)
          .isEqualTo(samResource.getOrDefault("UpdateReplacePolicy", "Delete"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameSchedulesAndInputs(Case c) throws IOException {
    Map<String, Map<String, Object>> samSchedules = schedulesByDescription(sam(c));
    Map<String, Map<String, Object>> cdkSchedules = schedulesByDescription(cdk(c));
    assertThat(cdkSchedules.keySet())
        .isEqualTo(samSchedules.keySet())
        .hasSize(hasSweepSchedule(c) ? 2 : 1);
    ObjectMapper json = new ObjectMapper();
    for (String description : samSchedules.keySet()) {
      Map<String, Object> samSchedule = new LinkedHashMap<>(samSchedules.get(description));
      Map<String, Object> cdkSchedule = new LinkedHashMap<>(cdkSchedules.get(description));
      Map<String, Object> samTarget = new LinkedHashMap<>(map(samSchedule.remove("Target")));
      Map<String, Object> cdkTarget = new LinkedHashMap<>(map(cdkSchedule.remove("Target")));
      assertThat(cdkSchedule).as(description).isEqualTo(samSchedule);
      String samInput = (String) samTarget.remove("Input");
      String cdkInput = (String) cdkTarget.remove("Input");
      assertThat(cdkTarget).as(description).isEqualTo(samTarget);
      assertThat(json.readTree(cdkInput)).as(description).isEqualTo(json.readTree(samInput));
      if (description.startsWith("icecompact: compact ")) {
        assertThat(ExecutionInputSchema.problems(cdkInput)).as(cdkInput).isEmpty();
      } else {
        assertThat(description).startsWith("icecompact: sweep ");
        assertThat(json.readTree(samInput).get("namespaces")).as(description).isNotEmpty();
        assertThat(ExecutionInputSchema.sweepProblems(cdkInput)).as(cdkInput).isEmpty();
        // SweepCareSteps: the list, [] for none, left out when empty (the sweep's defaults)
        Object careSteps = c.samParameters().getOrDefault("SweepCareSteps", "");
        assertThat(json.readTree(samInput).has("care_steps"))
            .as(description)
            .isEqualTo(!careSteps.equals(""));
        if (careSteps.equals("none")) {
          assertThat(json.readTree(samInput).get("care_steps")).as(description).isEmpty();
        } else if (!careSteps.equals("")) {
          assertThat(
                  String.join(
                      ",",
                      json.convertValue(json.readTree(samInput).get("care_steps"), List.class)))
              .as(description)
              .isEqualTo(careSteps);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameAlarmsAndMetricFilter(Case c) {
    for (String id :
        List.of(
            "ExecutionsFailedAlarm",
            "ExecutionsTimedOutAlarm",
            "SweepExecutionsFailedAlarm",
            "UnknownOrPartialJobsAlarm",
            "UnknownOrPartialJobsMetricFilter",
            "ScheduleDeadLettersAlarm")) {
      Map<String, Object> samProps = new TreeMap<>(props(map(sam(c).get(id))));
      Map<String, Object> cdkProps = new TreeMap<>(props(map(cdk(c).get(id))));
      // Worded alike; SAM's folded YAML text differs in white space.
      Object samDescription = samProps.remove("AlarmDescription");
      Object cdkDescription = cdkProps.remove("AlarmDescription");
      if (id.equals("SweepExecutionsFailedAlarm")) {
        // what fails a sweep (not a table's compaction, which the sweep catches), said alike
        assertThat(words(cdkDescription)).as(id).isEqualTo(words(samDescription));
      }
      assertThat(samProps).as(id).isNotEmpty();
      assertThat(cdkProps).as(id).isEqualTo(samProps);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameStalenessAlarmPerScheduledTable(Case c) {
    Map<String, Map<String, Object>> samAlarms = stalenessAlarmsByTable(sam(c));
    Map<String, Map<String, Object>> cdkAlarms = stalenessAlarmsByTable(cdk(c));
    assertThat(samAlarms).hasSize(1);
    assertThat(cdkAlarms).isEqualTo(samAlarms);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameDashboard(Case c) throws IOException {
    Map<String, Object> samDashboard = props(map(sam(c).get("OperationsDashboard")));
    Map<String, Object> cdkDashboard = props(map(cdk(c).get("OperationsDashboard")));
    assertThat(cdkDashboard.get("DashboardName"))
        .isEqualTo(samDashboard.get("DashboardName"))
        .isEqualTo("icecompact-${AWS::StackName}");
    ObjectMapper json = new ObjectMapper();
    assertThat(json.readTree((String) cdkDashboard.get("DashboardBody")))
        .isEqualTo(json.readTree((String) samDashboard.get("DashboardBody")));
  }

  /**
   * Staleness alarms (those with metric math on JobsCommitted) by their table, without the
   * description.
   */
  static Map<String, Map<String, Object>> stalenessAlarmsByTable(Map<String, Object> resources) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    CfnMaps.ofType(resources, "AWS::CloudWatch::Alarm")
        .values()
        .forEach(
            r -> {
              Map<String, Object> p = new TreeMap<>(props(r));
              if (p.containsKey("Metrics")) {
                p.remove("AlarmDescription");
                Map<String, Object> finished = map(list(p.get("Metrics")).get(1));
                Object table =
                    map(list(map(map(finished.get("MetricStat")).get("Metric")).get("Dimensions"))
                            .get(0))
                        .get("Value");
                out.put((String) table, p);
              }
            });
    return out;
  }

  // ------------------------------------------------------------------ the SAM side

  /**
   * What the SAM transform makes of the template, as far as compared here: Globals applied to the
   * functions, a role per function ({@code <Function>Role}: AWSLambdaBasicExecutionRole, managed
   * policies named in Policies, inline statements) and one for the state machine ({@code
   * <StateMachine>Role}).
   */
  static Map<String, Object> transformedSam(Map<String, Object> resources) {
    Map<String, Object> globals = map(map(sam.get("Globals")).get("Function"));
    Map<String, Object> out = new LinkedHashMap<>();
    resources.forEach(
        (id, value) -> {
          Map<String, Object> resource = map(value);
          Map<String, Object> p = new LinkedHashMap<>(props(resource));
          switch ((String) resource.get("Type")) {
            case "AWS::Serverless::Function" -> {
              p.putIfAbsent("Runtime", globals.get("Runtime"));
              p.putIfAbsent("Architectures", globals.get("Architectures"));
              p.putIfAbsent("TracingConfig", Map.of("Mode", globals.get("Tracing")));
              out.put(
                  id + "Role",
                  samRole("lambda.amazonaws.com", List.of(BASIC_EXECUTION), p.remove("Policies")));
              p.put("Role", "${" + id + "Role.Arn}");
              out.put(id, Map.of("Type", "AWS::Lambda::Function", "Properties", p));
            }
            case "AWS::Serverless::StateMachine" -> {
              // SAM's names for the resource's LoggingConfiguration and TracingConfiguration.
              p.put("LoggingConfiguration", p.get("Logging"));
              p.put("TracingConfiguration", p.get("Tracing"));
              out.put(
                  id + "Role", samRole("states.amazonaws.com", List.of(), p.remove("Policies")));
              out.put(id, Map.of("Type", "AWS::StepFunctions::StateMachine", "Properties", p));
            }
            default -> out.put(id, resource);
          }
        });
    return out;
  }

  /**
   * A function's property as compared: CATALOG_PROPERTIES as the JSON object it holds (the SAM
   * template's parameter keeps the user's spacing and key order; CDK renders its map).
   */
  private static Object comparable(String key, Object value) {
    if (!key.equals("Environment") || value == null) {
      return value;
    }
    Map<String, Object> variables = new TreeMap<>(map(map(value).get("Variables")));
    Object catalog = variables.get("CATALOG_PROPERTIES");
    if (catalog instanceof String json) {
      try {
        variables.put(
            "CATALOG_PROPERTIES", new TreeMap<>(new ObjectMapper().readValue(json, Map.class)));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return variables;
  }

  /**
   * The template with Globals' environment variables merged into each function's, as the SAM
   * transform does (a function's own variable wins), before intrinsics are resolved.
   */
  static Map<String, Object> withGlobalEnvironment(Map<String, Object> template) {
    Object environment = map(map(template.get("Globals")).get("Function")).get("Environment");
    if (environment == null) {
      return template;
    }
    Map<String, Object> globalVariables = map(map(environment).get("Variables"));
    Map<String, Object> resources = new LinkedHashMap<>();
    map(template.get("Resources"))
        .forEach(
            (id, value) -> {
              Map<String, Object> resource = map(value);
              if (!"AWS::Serverless::Function".equals(resource.get("Type"))) {
                resources.put(id, resource);
                return;
              }
              Map<String, Object> p = new LinkedHashMap<>(props(resource));
              Map<String, Object> variables = new LinkedHashMap<>(globalVariables);
              if (p.get("Environment") != null) {
                variables.putAll(map(map(p.get("Environment")).get("Variables")));
              }
              p.put("Environment", Map.of("Variables", variables));
              Map<String, Object> merged = new LinkedHashMap<>(resource);
              merged.put("Properties", p);
              resources.put(id, merged);
            });
    Map<String, Object> out = new LinkedHashMap<>(template);
    out.put("Resources", resources);
    return out;
  }

  private static Map<String, Object> samRole(
      String service, List<String> managed, Object policies) {
    List<String> managedPolicies = new java.util.ArrayList<>(managed);
    List<Object> statements = new java.util.ArrayList<>();
    for (Object policy : list(policies)) {
      if (policy instanceof String arn) {
        managedPolicies.add(arn);
      } else {
        statements.addAll(list(map(policy).get("Statement")));
      }
    }
    Map<String, Object> p = new LinkedHashMap<>();
    p.put(
        "AssumeRolePolicyDocument",
        Map.of(
            "Version",
            "2012-10-17",
            "Statement",
            List.of(
                Map.of(
                    "Effect",
                    "Allow",
                    "Principal",
                    Map.of("Service", service),
                    "Action",
                    "sts:AssumeRole"))));
    if (!managedPolicies.isEmpty()) {
      p.put("ManagedPolicyArns", managedPolicies);
    }
    p.put("Policies", List.of(Map.of("PolicyDocument", Map.of("Statement", statements))));
    return Map.of("Type", "AWS::IAM::Role", "Properties", p);
  }

  // ------------------------------------------------------------------ helpers

  static String words(Object text) {
    return ((String) text).trim().replaceAll("\\s+", " ");
  }

  static boolean hasSweepSchedule(Case c) {
    return !String.valueOf(c.samParameters().getOrDefault("SweepNamespaces", "")).isEmpty();
  }

  static Map<String, Object> sam(Case c) {
    return SAM_RESOLVED.get(c.name());
  }

  static Map<String, Object> cdk(Case c) {
    return CDK_RESOLVED.get(c.name());
  }

  static Map<String, Integer> typeCounts(Map<String, Object> resources) {
    Map<String, Integer> counts = new TreeMap<>();
    resources.values().forEach(r -> counts.merge((String) map(r).get("Type"), 1, Integer::sum));
    return counts;
  }

  /**
   * Statements keyed by Sid (or by their actions when they have none), order-free: action and
   * resource sets, the condition, the principal. Policy names and document versions are left out.
   */
  static Map<String, Object> comparable(Object policies) {
    Map<String, Object> out = new TreeMap<>();
    for (Map<String, Object> s : statements(policies)) {
      Set<String> actions = strings(s.get("Action"));
      Map<String, Object> shape = new TreeMap<>();
      shape.put("Effect", s.get("Effect"));
      shape.put("Action", actions);
      shape.put("Resource", s.containsKey("Resource") ? strings(s.get("Resource")) : Set.of());
      shape.put("Condition", s.getOrDefault("Condition", Map.of()));
      shape.put("Principal", s.getOrDefault("Principal", Map.of()));
      String key = (String) s.getOrDefault("Sid", String.join(",", actions));
      assertThat(out.put(key, shape)).as("statement " + key + " twice").isNull();
    }
    return out;
  }

  static Map<String, Map<String, Object>> schedulesByDescription(Map<String, Object> resources) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    CfnMaps.ofType(resources, "AWS::Scheduler::Schedule")
        .values()
        .forEach(r -> out.put((String) props(r).get("Description"), props(r)));
    return out;
  }

  private static Map<String, Object> mapOf(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}
