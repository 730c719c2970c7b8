package io.icecompact.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.core.job.WorkLocation;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks infra/template.yaml against the state machine definition, the handlers and the IAM rules.
 */
class TemplateTest {
  /**
   * The jar naming convention of the Lambda modules: one place to change when the jars are renamed.
   */
  static String jarOf(String module) {
    return "../" + module + "/target/icecompact-" + module + "-lambda.jar";
  }

  /**
   * The compaction state machine's functions by the placeholder naming each in compaction.asl.json.
   */
  static final Map<String, String> FUNCTIONS =
      Map.of(
          "AcquireLeaseFunction", "AcquireLeaseFunctionArn",
          "PlanRewriteFunction", "PlanRewriteFunctionArn",
          "RewriteGroupFunction", "RewriteGroupFunctionArn",
          "RecordGroupFailureFunction", "RecordGroupFailureFunctionArn",
          "CommitSnapshotFunction", "CommitSnapshotFunctionArn",
          "CareForTableFunction", "CareForTableFunctionArn",
          "ReleaseLeaseFunction", "ReleaseLeaseFunctionArn");

  /**
   * Every function of the template: the compaction state machine's seven and the sweep's
   * AssessTables.
   */
  static final Set<String> ALL_FUNCTIONS =
      Set.of(
          "AcquireLeaseFunction",
          "PlanRewriteFunction",
          "RewriteGroupFunction",
          "RecordGroupFailureFunction",
          "CommitSnapshotFunction",
          "CareForTableFunction",
          "ReleaseLeaseFunction",
          "AssessTablesFunction");

  /**
   * Functions that run without any catalog: they get neither catalog nor lease table permissions.
   */
  static final Set<String> WORKERS = Set.of("RewriteGroupFunction", "RecordGroupFailureFunction");

  static final List<String> CATALOG_ACTION_PREFIXES =
      List.of("glue:", "dynamodb:", "s3tables:", "lakeformation:", "secretsmanager:", "rds-db:");

  static Path infraDir;
  static Path rootDir;
  static Map<String, Object> template;
  static Map<String, Object> resources;

  @BeforeAll
  static void load() throws IOException {
    infraDir =
        Path.of(System.getProperty("icecompact.infra.dir", ".")).toAbsolutePath().normalize();
    rootDir = infraDir.getParent();
    template = CfnYaml.load(infraDir.resolve("template.yaml"));
    resources = map(template.get("Resources"));
  }

  @Test
  void isASamTemplate() {
    assertThat(template.get("Transform")).isEqualTo("AWS::Serverless-2016-10-31");
  }

  @Test
  void everyPlaceholderOfTheDefinitionHasASubstitutionAndViceVersa() throws IOException {
    String definition = Files.readString(definitionFile(), StandardCharsets.UTF_8);
    Set<String> placeholders = new TreeSet<>();
    Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(definition);
    while (m.find()) {
      placeholders.add(m.group(1));
    }
    Map<String, Object> substitutions =
        map(props("CompactionStateMachine").get("DefinitionSubstitutions"));

    assertThat(placeholders).isNotEmpty();
    assertThat(new TreeSet<>(substitutions.keySet())).isEqualTo(placeholders);
    // Each placeholder maps to the ARN of the function it names.
    FUNCTIONS.forEach(
        (function, placeholder) ->
            assertThat(substitutions.get(placeholder))
                .as(placeholder)
                .isEqualTo(getAtt(function, "Arn")));
  }

  @Test
  void definitionUriPointsAtTheDefinitionFile() throws IOException {
    assertThat(props("CompactionStateMachine").get("DefinitionUri"))
        .isEqualTo("../state-machine/compaction.asl.json");
    assertThat(definitionFile()).exists();
    assertThat(new ObjectMapper().readTree(definitionFile().toFile()).get("StartAt").asText())
        .isEqualTo("AcquireLease");
  }

  /**
   * Every function gets the deployment's catalog (DeployedCatalog), from Globals: the same
   * properties the schedules pass, so an input cannot choose another.
   */
  @Test
  void everyFunctionGetsTheDeployedCatalogFromGlobals() {
    Map<String, Object> variables =
        map(
            map(map(map(template.get("Globals")).get("Function")).get("Environment"))
                .get("Variables"));
    assertThat(variables.get("CATALOG_PROPERTIES"))
        .isEqualTo(
            Map.of(
                "Fn::If",
                List.of(
                    "HasCatalogPropertiesJson",
                    Map.of("Ref", "CatalogPropertiesJson"),
                    Map.of(
                        "Fn::If",
                        List.of(
                            "IsDynamoDbCatalog",
                            Map.of(
                                "Fn::Sub",
                                "{\"catalog-impl\":\"org.apache.iceberg.aws.dynamodb.DynamoDbCatalog\","
                                    + "\"dynamodb.table-name\":\"${CatalogDynamoDbTable}\","
                                    + "\"warehouse\":\"s3://${WarehouseBucket}/${WarehousePrefix}\"}"),
                            Map.of(
                                "Fn::Sub",
                                "{\"type\":\"glue\",\"warehouse\":\"s3://${WarehouseBucket}/${WarehousePrefix}\"}"))))));
    resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(
            name -> assertThat(environment(name)).as(name).doesNotContainKey("CATALOG_PROPERTIES"));
  }

  /**
   * Issue 41: with an SSE-KMS warehouse, a function without the key fails quietly (AssessTables
   * skipped every table; RecordGroupFailure could not record a failure). Every function that reads
   * table files may decrypt, every one that writes S3 objects may generate data keys, when keys are
   * given; the lease steps touch no S3 object and get neither.
   */
  @Test
  void everyFunctionThatReadsOrWritesS3ObjectsGetsTheWarehouseKmsKeys() {
    Map<String, List<String>> expected = new TreeMap<>();
    expected.put("PlanRewriteFunction", List.of("kms:Decrypt", "kms:GenerateDataKey"));
    expected.put("RewriteGroupFunction", List.of("kms:Decrypt", "kms:GenerateDataKey"));
    expected.put("RecordGroupFailureFunction", List.of("kms:GenerateDataKey"));
    expected.put("CommitSnapshotFunction", List.of("kms:Decrypt", "kms:GenerateDataKey"));
    expected.put("CareForTableFunction", List.of("kms:Decrypt", "kms:GenerateDataKey"));
    expected.put("AssessTablesFunction", List.of("kms:Decrypt"));
    Map<String, List<String>> actual = new TreeMap<>();
    resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(
            name -> {
              Map<String, Object> kms = bySid(props(name).get("Policies")).get("WarehouseKmsKeys");
              if (kms != null) {
                actual.put(name, asStrings(kms.get("Action")));
                assertThat(kms.get("Resource"))
                    .as(name)
                    .isEqualTo(
                        Map.of("Fn::Split", List.of(",", Map.of("Ref", "WarehouseKmsKeyArns"))));
              }
            });
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * Issue 41: every stage that writes a table (PlanRewrite, RewriteGroup, RecordGroupFailure,
   * CommitSnapshot, CareForTable) writes through the table-access role assumed with the table's
   * session policy, and no function's own role may write or delete in S3 at all: a write that skips
   * the session is denied. The role holds every write (the session narrows them to one table),
   * CareForTable's reads and catalog calls, trusts exactly those five roles, and is named to
   * exactly those five functions.
   */
  @Test
  void theTableAccessRoleHoldsEveryS3WriteAndNoFunctionRoleHoldsAny() {
    Map<String, Object> role = props("TableAccessRole");
    Map<String, Map<String, Object>> granted = bySid(role.get("Policies"));
    Map<String, Map<String, Object>> care = bySid(props("CareForTableFunction").get("Policies"));
    care.remove("LeaseCheck");
    care.remove("WorkLocationRead");
    assertThat(granted)
        .as("care's reads and catalog calls, the lease table's aside")
        .containsAllEntriesOf(care);
    List<String> writers = JOB_ARTEFACT_FUNCTIONS; // the stages that write a table
    resourcesOfType("AWS::Serverless::Function")
        .forEach(
            (name, resource) ->
                assertThat(actions(map(map(resource).get("Properties")).get("Policies")))
                    .as("%s writes only through TableAccessRole's session, if at all", name)
                    .noneMatch(TemplateTest::writesS3));
    String warehouse = "arn:${AWS::Partition}:s3:::${WarehouseBucket}/${WarehousePrefix}*/";
    String work = "arn:${AWS::Partition}:s3:::${Bucket}/${WorkPrefix}*";
    String defaultWork = warehouse + WorkLocation.DEFAULT_FOLDER + "/*";
    Map<String, Set<String>> writes = new TreeMap<>();
    for (Map<String, Object> statement : statements(role.get("Policies"))) {
      for (String action : asStrings(statement.get("Action"))) {
        if (writesS3(action)) {
          asList(statement.get("Resource"))
              .forEach(r -> writes.computeIfAbsent(action, a -> new TreeSet<>()).add(subText(r)));
        }
      }
    }
    assertThat(writes)
        .as("writes in data/, metadata/ and the work location only, never bucket-wide")
        .isEqualTo(
            Map.of(
                "s3:PutObject",
                Set.of(warehouse + "data/*", warehouse + "metadata/*", work, defaultWork),
                "s3:AbortMultipartUpload",
                Set.of(warehouse + "data/*", warehouse + "metadata/*", work, defaultWork),
                "s3:DeleteObject",
                Set.of(warehouse + "data/*", warehouse + "metadata/*", work, defaultWork)));
    assertThat(role.get("AssumeRolePolicyDocument"))
        .isEqualTo(
            Map.of(
                "Version",
                "2012-10-17",
                "Statement",
                List.of(
                    Map.of(
                        "Effect",
                        "Allow",
                        "Principal",
                        Map.of(
                            "AWS",
                            writers.stream()
                                .map(f -> Map.of("Fn::GetAtt", List.of(f + "Role", "Arn")))
                                .toList()),
                        "Action",
                        "sts:AssumeRole"))));
    Map<String, Object> named = new TreeMap<>();
    resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(
            name -> {
              Object arn = environment(name).get("TABLE_ACCESS_ROLE_ARN");
              if (arn != null) {
                named.put(name, arn);
              }
            });
    Object getAtt = Map.of("Fn::GetAtt", List.of("TableAccessRole", "Arn"));
    assertThat(named.keySet()).containsExactlyInAnyOrderElementsOf(writers);
    assertThat(named.values()).containsOnly(getAtt);
  }

  @Test
  void theFunctionsUseJava21OnArm64WithTheirHandlersAndJars() {
    Map<String, Object> globals = map(map(template.get("Globals")).get("Function"));
    Map<String, Object> functions = resourcesOfType("AWS::Serverless::Function");
    assertThat(functions.keySet()).containsExactlyInAnyOrderElementsOf(ALL_FUNCTIONS);

    functions.forEach(
        (name, resource) -> {
          Map<String, Object> p = map(map(resource).get("Properties"));
          assertThat(p.getOrDefault("Runtime", globals.get("Runtime")))
              .as(name)
              .isEqualTo("java21");
          assertThat(p.getOrDefault("Architectures", globals.get("Architectures")))
              .as(name)
              .isEqualTo(List.of("arm64"));
          assertThat(p.get("Timeout")).as(name).isIn(60, 900);
          assertThat(p).as(name).containsKey("MemorySize");

          String handler = (String) p.get("Handler");
          assertThat(handler).as(name).endsWith("::handleRequest");
          String className = handler.substring(0, handler.indexOf("::"));
          String module = (String) p.get("CodeUri");
          module = module.substring(3, module.indexOf('/', 3));
          assertThat(p.get("CodeUri")).as(name).isEqualTo(jarOf(module));
          Path source =
              rootDir
                  .resolve(module)
                  .resolve("src/main/java")
                  .resolve(className.replace('.', '/') + ".java");
          assertThat(source).as(name + " handler source").exists();
        });
    assertThat(props("RewriteGroupFunction").get("EphemeralStorage"))
        .isEqualTo(Map.of("Size", 10240));
    assertThat(props("RewriteGroupFunction").get("Timeout")).isEqualTo(900);
  }

  @Test
  void everyFunctionLogsToALogGroupWithTheRetentionParameter() {
    assertThat(map(map(template.get("Parameters")).get("LogRetentionDays")).get("Default"))
        .isEqualTo(30);
    resourcesOfType("AWS::Serverless::Function")
        .forEach(
            (name, resource) -> {
              Object logGroup =
                  map(map(map(resource).get("Properties")).get("LoggingConfig")).get("LogGroup");
              String logGroupName = (String) map(logGroup).get("Ref");
              assertThat(type(logGroupName)).as(name).isEqualTo("AWS::Logs::LogGroup");
              assertThat(props(logGroupName).get("RetentionInDays"))
                  .isEqualTo(Map.of("Ref", "LogRetentionDays"));
            });
  }

  @Test
  void everyFunctionLogsJsonAtTheLogLevelParameterWhichNeverDropsInfo() {
    Map<String, Object> logLevel = map(map(template.get("Parameters")).get("LogLevel"));
    assertThat(logLevel.get("Default")).isEqualTo("INFO");
    // The job line and the EMF lines have no level: Lambda counts them as INFO and drops them above
    // INFO.
    assertThat(logLevel.get("AllowedValues")).isEqualTo(List.of("TRACE", "DEBUG", "INFO"));
    resourcesOfType("AWS::Serverless::Function")
        .forEach(
            (name, resource) -> {
              Map<String, Object> logging =
                  map(map(map(resource).get("Properties")).get("LoggingConfig"));
              assertThat(logging.get("LogFormat")).as(name).isEqualTo("JSON");
              assertThat(logging.get("ApplicationLogLevel"))
                  .as(name)
                  .isEqualTo(Map.of("Ref", "LogLevel"));
              assertThat(logging.get("SystemLogLevel")).as(name).isEqualTo("INFO");
            });
  }

  @Test
  void workersHaveNoCatalogPermissionsAndOnlyTheWorkerKeepsTheLease() {
    for (String worker : WORKERS) {
      Map<String, Object> p = props(worker);
      boolean keepsLease = worker.equals("RewriteGroupFunction");
      // the worker's one DynamoDB statement: extending the execution's own lease (LeaseHeartbeat)
      List<Map<String, Object>> catalogFree =
          statements(p.get("Policies")).stream()
              .filter(s -> !(keepsLease && "LeaseHeartbeat".equals(s.get("Sid"))))
              .toList();
      List<String> actions =
          catalogFree.stream().flatMap(s -> asStrings(s.get("Action")).stream()).toList();
      assertThat(actions)
          .as(worker)
          .isNotEmpty()
          .allSatisfy(action -> assertThat(CATALOG_ACTION_PREFIXES).noneMatch(action::startsWith));
      assertThat(actions(p.get("Policies"))).as(worker).noneMatch(action -> action.contains("*"));
      // No managed policy (e.g. CatalogAccessPolicyArn) and no conditional statements either.
      assertThat(strings(p.get("Policies")))
          .as(worker)
          .doesNotContain("CatalogAccessPolicyArn", "IsGlue", "IsDynamoDbCatalog");
      assertThat(strings(catalogFree)).as(worker).doesNotContain("LeaseTable");
      // Nothing but the JIT setting, the deployment's scope and (the worker) the lease table: no
      // catalog settings.
      assertThat(environment(worker).keySet())
          .as(worker)
          .containsOnly(
              keepsLease
                  ? new String[] {
                    "JAVA_TOOL_OPTIONS",
                    "ALLOWED_TABLES",
                    "ALLOWED_LOCATIONS",
                    "TABLE_ACCESS_ROLE_ARN",
                    "LEASE_TABLE"
                  }
                  : new String[] {
                    "JAVA_TOOL_OPTIONS",
                    "ALLOWED_TABLES",
                    "ALLOWED_LOCATIONS",
                    "TABLE_ACCESS_ROLE_ARN"
                  });
    }
  }

  /**
   * Every function checks a job against the deployment's scope before writing (DeploymentScope):
   * the Glue database's tables (any table for the other catalogs) and the warehouse and work
   * prefixes its IAM grants name.
   */
  @Test
  void everyFunctionIsBoundToTheDeploymentsTablesAndLocations() {
    resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(
            name -> {
              Map<String, Object> environment = environment(name);
              assertThat(environment.get("ALLOWED_TABLES"))
                  .as(name)
                  .isEqualTo(
                      Map.of(
                          "Fn::If", List.of("IsGlue", Map.of("Fn::Sub", "${GlueDatabase}.*"), "")));
              assertThat(environment.get("ALLOWED_LOCATIONS"))
                  .as(name)
                  .isEqualTo(
                      Map.of(
                          "Fn::Sub",
                          List.of(
                              "s3://${WarehouseBucket}/${WarehousePrefix},s3://${WorkBucketName}/${WorkPrefix}",
                              Map.of(
                                  "WorkBucketName",
                                  Map.of(
                                      "Fn::If",
                                      List.of(
                                          "CreateWorkBucket",
                                          Map.of("Ref", "WorkBucket"),
                                          Map.of("Ref", "ExistingWorkBucket")))))));
            });
  }

  /**
   * C2 (tiered compilation up to level 4) for the worker's minutes-long rewrite loop, C1 only for
   * the others (docs/deploy.md, "JIT compilers"); each function states its level rather than rely
   * on the runtime's default.
   */
  @Test
  void theWorkerCompilesWithC2AndTheOthersWithC1Only() {
    Map<String, String> levels = new TreeMap<>();
    resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(
            name -> {
              String options = (String) environment(name).get("JAVA_TOOL_OPTIONS");
              assertThat(options).as(name).contains("-XX:+TieredCompilation");
              Matcher level = Pattern.compile("-XX:TieredStopAtLevel=(\\d)").matcher(options);
              assertThat(level.find()).as(name + ": " + options).isTrue();
              levels.put(name, level.group(1));
            });
    assertThat(levels)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "PlanRewriteFunction",
                "1",
                "RewriteGroupFunction",
                "4",
                "CommitSnapshotFunction",
                "1",
                "AcquireLeaseFunction",
                "1",
                "ReleaseLeaseFunction",
                "1",
                "RecordGroupFailureFunction",
                "1",
                "AssessTablesFunction",
                "1",
                "CareForTableFunction",
                "1"));
  }

  @Test
  void onlyPlannerCommitterCareAndAssessTablesGetCatalogPermissions() {
    Set<String> withGlue = new TreeSet<>();
    resourcesOfType("AWS::Serverless::Function")
        .forEach(
            (name, resource) -> {
              if (actions(map(map(resource).get("Properties")).get("Policies")).stream()
                  .anyMatch(a -> a.startsWith("glue:"))) {
                withGlue.add(name);
              }
            });
    assertThat(withGlue)
        .containsExactlyInAnyOrder(
            "PlanRewriteFunction",
            "CommitSnapshotFunction",
            "CareForTableFunction",
            "AssessTablesFunction");
    assertThat(actions(props("PlanRewriteFunction").get("Policies")))
        .contains("glue:GetTable", "glue:GetDatabase")
        .doesNotContain("glue:UpdateTable");
    assertThat(actions(props("CommitSnapshotFunction").get("Policies")))
        .contains("glue:GetTable", "glue:UpdateTable");
    assertThat(actions(props("CareForTableFunction").get("Policies")))
        .contains("glue:GetTable", "glue:UpdateTable");
  }

  @Test
  void onlyTheLeaseFunctionsTheCommitterAndCareUseTheLeaseTable() {
    Set<String> users = new TreeSet<>();
    resourcesOfType("AWS::Serverless::Function")
        .forEach(
            (name, resource) -> {
              if (strings(map(resource).get("Properties")).contains("LeaseTable")) {
                users.add(name);
              }
            });
    assertThat(users)
        .containsExactlyInAnyOrder(
            "AcquireLeaseFunction",
            "ReleaseLeaseFunction",
            "RewriteGroupFunction",
            "CommitSnapshotFunction",
            "CareForTableFunction");
    for (String user : users) {
      assertThat(environment(user).get("LEASE_TABLE"))
          .as(user)
          .isEqualTo(Map.of("Ref", "LeaseTable"));
    }
    // The worker, the committer and care only keep the lease they were given: a read and the
    // conditional
    // update that extends it (TableLease.holdFor); no PutItem, DeleteItem or Query.
    Map<String, String> keepers =
        Map.of(
            "RewriteGroupFunction",
            "LeaseHeartbeat",
            "CommitSnapshotFunction",
            "LeaseCheck",
            "CareForTableFunction",
            "LeaseCheck");
    keepers.forEach(
        (keeper, sid) -> {
          List<Map<String, Object>> onLeaseTable =
              statements(props(keeper).get("Policies")).stream()
                  .filter(s -> strings(s.get("Resource")).contains("LeaseTable"))
                  .toList();
          assertThat(onLeaseTable)
              .as(keeper)
              .singleElement()
              .satisfies(
                  s -> {
                    assertThat(s.get("Sid")).isEqualTo(sid);
                    assertThat(asStrings(s.get("Action")))
                        .containsExactlyInAnyOrder("dynamodb:GetItem", "dynamodb:UpdateItem");
                  });
        });
  }

  /**
   * CareForTable commits through the catalog like the committer and so gets exactly its statements,
   * size and environment, plus reading the whole catalog, read only, to prove no other table shares
   * a file it would delete (issue 24). Its deletes go through TableAccessRole.
   */
  @Test
  void careForTableHasTheCommittersPermissionsPlusTheCatalogReadForSharedFiles() {
    Map<String, Object> care = props("CareForTableFunction");
    Map<String, Object> committer = props("CommitSnapshotFunction");
    for (String key : List.of("MemorySize", "Timeout", "Environment")) {
      assertThat(care.get(key)).as(key).isEqualTo(committer.get(key));
    }
    assertThat(care.get("CodeUri")).isEqualTo(jarOf("care-fn"));
    assertThat(care.get("Handler"))
        .isEqualTo("io.icecompact.care.lambda.CareForTableHandler::handleRequest");
    // The access policy for REST/JDBC catalogs reaches it as it reaches the committer.
    assertThat(asList(care.get("Policies")).get(0))
        .isEqualTo(asList(committer.get("Policies")).get(0));

    Map<String, Map<String, Object>> careBySid = bySid(care.get("Policies"));
    Map<String, Object> glueRead = careBySid.remove("GlueCatalogReadForSharedFiles");
    Map<String, Object> dynamoDbRead = careBySid.remove("DynamoDbCatalogReadForSharedFiles");
    assertThat(careBySid).isEqualTo(bySid(committer.get("Policies")));
    assertThat(asStrings(glueRead.get("Action")))
        .containsExactlyInAnyOrder(
            "glue:GetDatabases", "glue:GetDatabase", "glue:GetTables", "glue:GetTable");
    assertThat(asList(glueRead.get("Resource")).stream().map(TemplateTest::subText).toList())
        .containsExactly(
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:catalog",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:database/*",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/*/*");
    assertThat(asStrings(dynamoDbRead.get("Action")))
        .containsExactlyInAnyOrder("dynamodb:DescribeTable", "dynamodb:GetItem", "dynamodb:Query");
  }

  // ------------------------------------------------------------------ where jobs keep their
  // artefacts

  /**
   * The functions that read and write a job's artefacts (plan, results, markers, intents, result,
   * care.json).
   */
  static final List<String> JOB_ARTEFACT_FUNCTIONS =
      List.of(
          "PlanRewriteFunction",
          "RewriteGroupFunction",
          "RecordGroupFailureFunction",
          "CommitSnapshotFunction",
          "CareForTableFunction");

  static final String TABLE_LOCATION = "s3://my-warehouse/warehouse/analytics.db/orders";

  /**
   * A job without work_location keeps its artefacts under {@code <table
   * location>/_icecompact/<job>} (core's WorkLocation): every function that reads or writes them
   * may do so there, and list there (S3 answers 403 rather than 404 for a missing key without
   * ListBucket), for a table inside the warehouse prefix. Issue 28: the grants covered data/ and
   * metadata/ only, so the planner failed with AccessDenied after the lease was taken.
   */
  @Test
  void theDefaultWorkLocationIsInsideWhatEachFunctionThatUsesItMayReadAndWrite() {
    WorkLocation work = WorkLocation.of(null, TABLE_LOCATION, "analytics.orders", "job-1");
    assertThat(work.jobDirectory()).isEqualTo(TABLE_LOCATION + "/_icecompact/job-1");
    assertTheFunctionsMayUse(work);
    // Inside what the functions' own check (DeploymentScope) allows too.
    assertThat(work.jobDirectory()).startsWith("s3://my-warehouse/warehouse/");
    // Nothing that does not handle jobs gets to write there.
    for (String other :
        List.of("AcquireLeaseFunction", "ReleaseLeaseFunction", "AssessTablesFunction")) {
      assertThat(
              PolicyStatements.allows(
                  statements(props(other).get("Policies")),
                  "s3:PutObject",
                  arn(work.plan()),
                  TemplateTest::rendered))
          .as(other)
          .isFalse();
    }
  }

  /**
   * The schedules' work location: the work prefix, each table's jobs under it once (see the test
   * below).
   */
  @Test
  void theConfiguredWorkLocationIsInsideWhatEachFunctionThatUsesItMayReadAndWrite() {
    assertTheFunctionsMayUse(
        WorkLocation.of(
            "s3://work-bucket/icecompact/jobs/", TABLE_LOCATION, "analytics.orders", "job-1"));
  }

  private static void assertTheFunctionsMayUse(WorkLocation work) {
    List<String> artefacts =
        List.of(
            work.plan(),
            work.groupPlan(0),
            work.groupResult(0),
            work.groupFailure(0),
            work.attemptMarker(0, 1),
            work.outputEntry(0, 1, "00000-0-x.parquet"),
            work.commitIntent(0),
            work.jobResult(),
            work.careResult());
    String directory = work.jobDirectory().replaceFirst("^s3://", "");
    String bucket = directory.substring(0, directory.indexOf('/'));
    String key = directory.substring(bucket.length() + 1) + "/";
    List<Map<String, Object>> tableAccess = statements(props("TableAccessRole").get("Policies"));
    for (String function : JOB_ARTEFACT_FUNCTIONS) {
      List<Map<String, Object>> statements = statements(props(function).get("Policies"));
      for (String artefact : artefacts) {
        assertThat(
                PolicyStatements.allows(
                    statements, "s3:GetObject", arn(artefact), TemplateTest::rendered))
            .as("%s: s3:GetObject on %s", function, artefact)
            .isTrue();
        assertThat(
                PolicyStatements.allows(
                    tableAccess, "s3:PutObject", arn(artefact), TemplateTest::rendered))
            .as("TableAccessRole (%s's session): s3:PutObject on %s", function, artefact)
            .isTrue();
      }
      assertThat(
              PolicyStatements.allowsListing(
                  statements, "arn:aws:s3:::" + bucket, key, TemplateTest::rendered))
          .as("%s: s3:ListBucket under %s", function, key)
          .isTrue();
    }
    // Orphan removal deletes finished jobs' work locations (care's session).
    assertThat(
            PolicyStatements.allows(
                tableAccess, "s3:DeleteObject", arn(work.plan()), TemplateTest::rendered))
        .isTrue();
  }

  /**
   * The schedules pass the work prefix as work_location, as the sweep does: the job appends the
   * table identifier itself (core's WorkLocation), so a scheduled table's jobs go to {@code
   * <prefix><table>/<job>}, not {@code <prefix><table>/<table>/<job>}, and a table's jobs land in
   * one place whether its schedule or a sweep started them.
   */
  @Test
  void schedulesAndTheSweepPutATablesJobsUnderTheWorkPrefixOnce() throws IOException {
    ObjectMapper json = new ObjectMapper();
    String sweepWorkLocation = json.readTree(filledSweepInput()).get("work_location").asText();
    for (int i = 1; i <= 3; i++) {
      String input =
          (String)
              asList(
                      map(map(props("CompactTable" + i + "Schedule").get("Target")).get("Input"))
                          .get("Fn::Sub"))
                  .get(0);
      String filled =
          input
              .replace("${Table" + i + "}", "Analytics.Orders")
              .replace("${Catalog}", "{\"type\": \"glue\"}")
              .replace("${ScheduleOptionsJson}", "{}")
              .replace("${Bucket}", "work-bucket")
              .replace("${WorkPrefix}", "icecompact/jobs/");
      String workLocation = json.readTree(filled).get("work_location").asText();
      assertThat(workLocation)
          .as("Table%d", i)
          .isEqualTo("s3://work-bucket/icecompact/jobs/")
          .isEqualTo(sweepWorkLocation);
      assertThat(
              WorkLocation.of(workLocation, TABLE_LOCATION, "Analytics.Orders", "job-1")
                  .jobDirectory())
          .isEqualTo("s3://work-bucket/icecompact/jobs/analytics.orders/job-1");
    }
    // The outputs and the parameter say the same.
    Map<String, Object> outputs = map(template.get("Outputs"));
    assertThat(words(map(outputs.get("WorkLocationPrefix")).get("Description")))
        .contains("work_location to s3://<WorkBucketName>/<this> ")
        .doesNotContain("<this><table>");
    assertThat(words(map(map(template.get("Parameters")).get("WorkPrefix")).get("Description")))
        .contains("The schedules pass s3://<bucket>/<prefix> as work_location");
  }

  /** The sweep's schedule input as CloudFormation renders it (glue, analytics, defaults). */
  static String filledSweepInput() {
    List<Object> input =
        asList(
            map(map(props("SweepNamespacesSchedule").get("Target")).get("Input")).get("Fn::Sub"));
    return ((String) input.get(0))
        .replace("${Catalog}", "{\"type\": \"glue\", \"warehouse\": \"s3://w/warehouse/\"}")
        .replace("${Namespaces}", "analytics")
        .replace("${SweepMaxTables}", "10")
        .replace("${SweepMaxConcurrentTables}", "4")
        .replace("${Bucket}", "work-bucket")
        .replace("${WorkPrefix}", "icecompact/jobs/")
        .replace("${CareSteps}", "");
  }

  /**
   * The SweepStateMachineArn output names every field of the sweep input an operator may set,
   * work_location included, and says where jobs go without it (the warehouse prefix, which the
   * grants now cover).
   */
  @Test
  void theSweepOutputNamesTheSweepInputsFields() throws IOException {
    String description =
        words(map(map(template.get("Outputs")).get("SweepStateMachineArn")).get("Description"));
    JsonNode schema =
        new ObjectMapper()
            .readTree(rootDir.resolve("state-machine/sweep-input.schema.json").toFile());
    assertThat(description)
        .contains("state-machine/sweep-input.schema.json", "<location>/_icecompact");
    for (String field :
        List.of(
            "catalog_properties",
            "namespaces",
            "max_tables",
            "max_concurrent_tables",
            "care_steps",
            "work_location")) {
      assertThat(schema.at("/properties/" + field).isMissingNode()).as(field).isFalse();
      assertThat(description).contains("\"" + field + "\"");
    }
  }

  /** The text of an S3 URI as an S3 object ARN in the aws partition. */
  static String arn(String s3Uri) {
    return "arn:aws:s3:::" + s3Uri.replaceFirst("^s3://", "");
  }

  /** Example parameter values of the IAM resources rendered by {@link #rendered}. */
  static final Map<String, String> EXAMPLE_VALUES =
      Map.of(
          "AWS::Partition",
          "aws",
          "AWS::Region",
          "eu-west-1",
          "AWS::AccountId",
          "123456789012",
          "WarehouseBucket",
          "my-warehouse",
          "WarehousePrefix",
          "warehouse/",
          "WorkPrefix",
          "icecompact/jobs/",
          "GlueDatabase",
          "analytics");

  /**
   * An IAM resource or condition value as CloudFormation renders it with {@link #EXAMPLE_VALUES}
   * and a created work bucket named work-bucket; null for what is not a string or an Fn::Sub (e.g.
   * an Fn::GetAtt).
   */
  static String rendered(Object value) {
    if (value instanceof String s) {
      return s;
    }
    Object sub = map(value).get("Fn::Sub");
    if (sub == null) {
      return null;
    }
    Map<String, String> values = new java.util.HashMap<>(EXAMPLE_VALUES);
    String text;
    if (sub instanceof List<?> l) {
      text = (String) l.get(0);
      map(l.get(1))
          .forEach(
              (name, v) -> {
                assertThat(v)
                    .as(name)
                    .isEqualTo(
                        Map.of(
                            "Fn::If",
                            List.of(
                                "CreateWorkBucket",
                                Map.of("Ref", "WorkBucket"),
                                Map.of("Ref", "ExistingWorkBucket"))));
                values.put(name, "work-bucket");
              });
    } else {
      text = (String) sub;
    }
    Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(values.getOrDefault(m.group(1), m.group())));
    }
    return m.appendTail(out).toString();
  }

  /** A description's text with YAML folding's white space made single spaces. */
  static String words(Object text) {
    return ((String) text).trim().replaceAll("\\s+", " ");
  }

  @Test
  void theStateMachineMayInvokeOnlyItsOwnFunctions() {
    List<Map<String, Object>> statements =
        withoutObservability(props("CompactionStateMachine").get("Policies"));
    List<Object> lambdaResources = new ArrayList<>();
    for (Map<String, Object> statement : statements) {
      List<String> actions = asStrings(statement.get("Action"));
      if (actions.stream().anyMatch(a -> a.startsWith("lambda:"))) {
        assertThat(actions).containsExactly("lambda:InvokeFunction");
        lambdaResources.addAll(asList(statement.get("Resource")));
      }
    }
    assertThat(lambdaResources)
        .containsExactlyInAnyOrderElementsOf(
            FUNCTIONS.keySet().stream().map(f -> (Object) getAtt(f, "Arn")).toList());

    // DISTRIBUTED Map: child executions of this state machine only.
    Set<String> allActions =
        statements.stream()
            .flatMap(s -> asStrings(s.get("Action")).stream())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(allActions)
        .containsExactlyInAnyOrder(
            "lambda:InvokeFunction",
            "states:StartExecution",
            "states:DescribeExecution",
            "states:StopExecution");
    String name = (String) map(props("CompactionStateMachine").get("Name")).get("Fn::Sub");
    for (Map<String, Object> statement : statements) {
      if (asStrings(statement.get("Action")).contains("states:StartExecution")) {
        assertThat(sub(statement.get("Resource"))).endsWith(":stateMachine:" + name);
      }
      if (asStrings(statement.get("Action")).contains("states:DescribeExecution")) {
        assertThat(sub(statement.get("Resource"))).endsWith(":execution:" + name + "/*");
      }
    }
    String definition = assertDoesNotThrow(() -> Files.readString(definitionFile()));
    assertThat(definition).contains("\"Mode\": \"DISTRIBUTED\"");
  }

  @Test
  void theLeaseTableIsOnDemandWithPointInTimeRecoveryAndStringKeys() {
    assertThat(type("LeaseTable")).isEqualTo("AWS::DynamoDB::Table");
    Map<String, Object> p = props("LeaseTable");
    assertThat(p.get("BillingMode")).isEqualTo("PAY_PER_REQUEST");
    assertThat(map(p.get("PointInTimeRecoverySpecification")).get("PointInTimeRecoveryEnabled"))
        .isEqualTo(true);
    // the job log's entries expire on the attribute JobLog.EXPIRES_AT; lease items have none
    assertThat(p.get("TimeToLiveSpecification"))
        .isEqualTo(Map.of("AttributeName", "expires_at_epoch_s", "Enabled", true));
    assertThat(p.get("KeySchema"))
        .isEqualTo(
            List.of(
                Map.of("AttributeName", "pk", "KeyType", "HASH"),
                Map.of("AttributeName", "sk", "KeyType", "RANGE")));
    assertThat(p.get("AttributeDefinitions"))
        .isEqualTo(
            List.of(
                Map.of("AttributeName", "pk", "AttributeType", "S"),
                Map.of("AttributeName", "sk", "AttributeType", "S")));
  }

  @Test
  void theWorkBucketExpiresJobArtefacts() {
    assertThat(type("WorkBucket")).isEqualTo("AWS::S3::Bucket");
    List<Object> rules =
        asList(map(props("WorkBucket").get("LifecycleConfiguration")).get("Rules"));
    assertThat(rules)
        .anySatisfy(
            rule -> {
              assertThat(map(rule).get("Status")).isEqualTo("Enabled");
              assertThat(map(rule).get("ExpirationInDays"))
                  .isEqualTo(Map.of("Ref", "WorkArtefactRetentionDays"));
              assertThat(map(rule).get("Prefix")).isEqualTo(Map.of("Ref", "WorkPrefix"));
            });
    assertThat(map(map(template.get("Parameters")).get("WorkArtefactRetentionDays")).get("Default"))
        .isEqualTo(14);
  }

  @Test
  void schedulesStartTheStateMachineWithAValidExecutionInput() throws IOException {
    Map<String, Object> schedules = resourcesOfType("AWS::Scheduler::Schedule");
    schedules.remove("SweepNamespacesSchedule");
    assertThat(schedules).hasSize(3);
    JsonNode schema =
        new ObjectMapper()
            .readTree(rootDir.resolve("state-machine/execution-input.schema.json").toFile());
    Set<String> allowed = new TreeSet<>();
    schema.get("properties").fieldNames().forEachRemaining(allowed::add);

    schedules.forEach(
        (name, resource) -> {
          Map<String, Object> target = map(map(map(resource).get("Properties")).get("Target"));
          assertThat(target.get("Arn")).isEqualTo(Map.of("Ref", "CompactionStateMachine"));
          assertThat(target.get("RoleArn")).isEqualTo(getAtt("SchedulerRole", "Arn"));
          String input = (String) asList(map(target.get("Input")).get("Fn::Sub")).get(0);
          String filled =
              input
                  .replaceAll("\\$\\{Table\\d}", "analytics.orders")
                  .replace(
                      "${Catalog}", "{\"type\": \"glue\", \"warehouse\": \"s3://w/warehouse/\"}")
                  .replace("${ScheduleOptionsJson}", "{}")
                  .replace("${Bucket}", "work-bucket")
                  .replace("${WorkPrefix}", "icecompact/jobs/");
          assertThat(filled).as(name).doesNotContain("${");
          JsonNode json = assertDoesNotThrow(() -> new ObjectMapper().readTree(filled));
          Set<String> fields = new TreeSet<>();
          json.fieldNames().forEachRemaining(fields::add);
          assertThat(fields).as(name).contains("table", "catalog_properties").isSubsetOf(allowed);
          assertThat(json.get("table").asText()).isEqualTo("analytics.orders");
        });

    List<Map<String, Object>> statements =
        statements(
            asList(map(props("SchedulerRole")).get("Policies")).stream()
                .map(p -> map(p).get("PolicyDocument"))
                .toList());
    assertThat(statements).hasSize(2);
    assertThat(asStrings(statements.get(0).get("Action"))).containsExactly("states:StartExecution");
    assertThat(statements.get(0).get("Resource"))
        .isEqualTo(Map.of("Ref", "CompactionStateMachine"));
    assertThat(statements.get(1)).isEqualTo(DEAD_LETTERS);
  }

  /**
   * What a scheduler role may do besides starting its state machine: put failed starts in the
   * dead-letter queue.
   */
  static final Map<String, Object> DEAD_LETTERS =
      Map.of(
          "Sid",
          "DeadLetters",
          "Effect",
          "Allow",
          "Action",
          "sqs:SendMessage",
          "Resource",
          getAtt("ScheduleDeadLetterQueue", "Arn"));

  // ------------------------------------------------------------------ safe defaults

  @Test
  void everyScheduleRetriesForAnHourThenLeavesTheStartInAnEncryptedTlsOnlyDeadLetterQueue() {
    Map<String, Object> schedules = resourcesOfType("AWS::Scheduler::Schedule");
    assertThat(schedules).hasSize(4);
    schedules.forEach(
        (name, resource) -> {
          Map<String, Object> target = map(map(map(resource).get("Properties")).get("Target"));
          assertThat(target.get("RetryPolicy"))
              .as(name)
              .isEqualTo(Map.of("MaximumEventAgeInSeconds", 3600, "MaximumRetryAttempts", 5));
          assertThat(target.get("DeadLetterConfig"))
              .as(name)
              .isEqualTo(Map.of("Arn", getAtt("ScheduleDeadLetterQueue", "Arn")));
          // The queue exists whenever a schedule does.
          assertThat(template.get("Conditions").toString()).contains("HasSchedule");
          assertThat(
                  asStrings(
                      asList(map(map(template.get("Conditions")).get("HasSchedule")).get("Fn::Or"))
                          .stream()
                          .map(c -> map(c).get("Condition"))
                          .toList()))
              .contains((String) map(resource).get("Condition"));
        });
    Map<String, Object> queue = map(resources.get("ScheduleDeadLetterQueue"));
    assertThat(queue.get("Condition")).isEqualTo("HasSchedule");
    assertThat(props("ScheduleDeadLetterQueue"))
        .containsEntry("SqsManagedSseEnabled", true)
        .containsEntry("MessageRetentionPeriod", 1209600);
    assertThat(statements(props("ScheduleDeadLetterQueuePolicy").get("PolicyDocument")))
        .singleElement()
        .isEqualTo(tlsOnly("sqs:*", getAtt("ScheduleDeadLetterQueue", "Arn")));
    Map<String, Object> alarm = props("ScheduleDeadLettersAlarm");
    assertThat(alarm)
        .containsEntry("Namespace", "AWS/SQS")
        .containsEntry("MetricName", "ApproximateNumberOfMessagesVisible")
        .containsEntry("Threshold", 1);
    assertThat(statements(props("SweepSchedulerRole").get("Policies"))).contains(DEAD_LETTERS);
  }

  @Test
  void theCreatedWorkBucketRefusesPlainHttp() {
    Map<String, Object> policy = map(resources.get("WorkBucketPolicy"));
    assertThat(policy.get("Condition")).isEqualTo("CreateWorkBucket");
    assertThat(props("WorkBucketPolicy").get("Bucket")).isEqualTo(Map.of("Ref", "WorkBucket"));
    assertThat(statements(props("WorkBucketPolicy").get("PolicyDocument")))
        .singleElement()
        .isEqualTo(
            tlsOnly(
                "s3:*",
                List.of(getAtt("WorkBucket", "Arn"), Map.of("Fn::Sub", "${WorkBucket.Arn}/*"))));
  }

  @Test
  void theGlueScopeHasNoDefaultAndAGlueDeployWithoutItFailsWithAMessage() {
    Map<String, Object> parameter = map(map(template.get("Parameters")).get("GlueDatabase"));
    assertThat(parameter.get("Default")).isEqualTo("");
    Pattern allowed = Pattern.compile((String) parameter.get("AllowedPattern"));
    assertThat(allowed.matcher("analytics").matches()).isTrue();
    assertThat(allowed.matcher("*").matches()).as("asked for explicitly").isTrue();
    assertThat(allowed.matcher("analytics/*").matches()).isFalse();
    assertThat(allowed.matcher("a*").matches()).isFalse();
    Map<String, Object> rule = map(map(template.get("Rules")).get("GlueNeedsGlueDatabase"));
    assertThat(rule.get("RuleCondition"))
        .isEqualTo(Map.of("Fn::Equals", List.of(Map.of("Ref", "CatalogType"), "glue")));
    Map<String, Object> assertion = map(asList(rule.get("Assertions")).get(0));
    assertThat(assertion.get("Assert"))
        .isEqualTo(
            Map.of(
                "Fn::Not",
                List.of(Map.of("Fn::Equals", List.of(Map.of("Ref", "GlueDatabase"), "")))));
    assertThat((String) assertion.get("AssertDescription"))
        .contains("CatalogType glue needs GlueDatabase");
  }

  @Test
  void logGroupsAreKeptWhenTheStackGoes() {
    Map<String, Object> logGroups = resourcesOfType("AWS::Logs::LogGroup");
    assertThat(logGroups).hasSize(ALL_FUNCTIONS.size() + 2); // and the two state machines'
    assertThat(logGroups)
        .containsKeys("CompactionStateMachineLogGroup", "SweepStateMachineLogGroup");
    logGroups.forEach(
        (name, group) -> {
          assertThat(map(group).get("DeletionPolicy")).as(name).isEqualTo("Retain");
          assertThat(map(group).get("UpdateReplacePolicy")).as(name).isEqualTo("Retain");
          assertThat(map(map(group).get("Properties")).get("RetentionInDays"))
              .as(name)
              .isEqualTo(Map.of("Ref", "LogRetentionDays"));
        });
  }

  @Test
  void everyFunctionRoleTakesAnOptionalExtraManagedPolicy() {
    for (String function : ALL_FUNCTIONS) {
      String step = function.replace("Function", "");
      Map<String, Object> parameter =
          map(map(template.get("Parameters")).get(step + "ExtraPolicyArn"));
      assertThat(parameter).as(step).isNotNull().containsEntry("Default", "");
      assertThat(asList(props(function).get("Policies")))
          .as(function)
          .contains(
              Map.of(
                  "Fn::If",
                  List.of(
                      "Has" + step + "ExtraPolicy",
                      Map.of("Ref", step + "ExtraPolicyArn"),
                      Map.of("Ref", "AWS::NoValue"))));
    }
  }

  @Test
  void theWorkersReservedConcurrencyIsAParameterWithNoReservationByDefault() {
    Map<String, Object> parameter =
        map(map(template.get("Parameters")).get("WorkerReservedConcurrency"));
    assertThat(parameter).containsEntry("Type", "Number").containsEntry("Default", 0);
    assertThat((String) parameter.get("Description")).contains("max_concurrency");
    assertThat(props("RewriteGroupFunction").get("ReservedConcurrentExecutions"))
        .isEqualTo(
            Map.of(
                "Fn::If",
                List.of(
                    "HasWorkerReservedConcurrency",
                    Map.of("Ref", "WorkerReservedConcurrency"),
                    Map.of("Ref", "AWS::NoValue"))));
    ALL_FUNCTIONS.stream()
        .filter(f -> !f.equals("RewriteGroupFunction"))
        .forEach(f -> assertThat(props(f)).as(f).doesNotContainKey("ReservedConcurrentExecutions"));
  }

  // ------------------------------------------------------------------ watching

  @Test
  void bothStateMachinesLogErrorsByDefaultWithoutExecutionDataAndTraceOnlyWhenAsked() {
    Map<String, Object> parameters = map(template.get("Parameters"));
    assertThat(map(parameters.get("StateMachineLogLevel")))
        .containsEntry("Default", "ERROR")
        .containsEntry("AllowedValues", List.of("ALL", "ERROR", "FATAL", "OFF"));
    assertThat(map(parameters.get("StateMachineTracing"))).containsEntry("Default", "false");
    for (String machine : List.of("CompactionStateMachine", "SweepStateMachine")) {
      assertThat(props(machine).get("Logging"))
          .as(machine)
          .isEqualTo(logging(machine + "LogGroup"));
      assertThat(props(machine).get("Tracing"))
          .as(machine)
          .isEqualTo(
              Map.of("Enabled", Map.of("Fn::If", List.of("TraceStateMachines", true, false))));
      Map<String, Map<String, Object>> bySid = bySid(props(machine).get("Policies"));
      assertThat(asStrings(bySid.get("LogDelivery").get("Action")))
          .contains("logs:CreateLogDelivery");
      assertThat(asStrings(bySid.get("XRay").get("Action"))).contains("xray:PutTraceSegments");
      // X-Ray only with tracing on.
      assertThat(strings(props(machine).get("Policies"))).contains("TraceStateMachines");
      assertThat(subText(props(machine + "LogGroup").get("LogGroupName")))
          .startsWith("/aws/vendedlogs/states/icecompact/${AWS::StackName}-");
    }
  }

  @Test
  void eachScheduledTableHasAStalenessAlarmThatTreatsMissingDaysAsStale() {
    for (int i = 1; i <= 3; i++) {
      Map<String, Object> alarm = map(resources.get("Table" + i + "StalenessAlarm"));
      assertThat(alarm.get("Condition")).isEqualTo("ScheduleTable" + i);
      Map<String, Object> p = map(alarm.get("Properties"));
      assertThat(p)
          .containsEntry("EvaluationPeriods", Map.of("Ref", "StaleAfterDays"))
          .containsEntry("DatapointsToAlarm", Map.of("Ref", "StaleAfterDays"))
          .containsEntry("ComparisonOperator", "LessThanThreshold")
          .containsEntry("Threshold", 1)
          .containsEntry("TreatMissingData", "breaching");
      List<Object> metrics = asList(p.get("Metrics"));
      // Only COMMITTED, PARTIAL and NOTHING_TO_DO jobs keep a table fresh: every other status is
      // subtracted.
      assertThat(map(metrics.get(0)).get("Expression"))
          .isEqualTo("finished - failed - unknown - contended");
      Map<String, String> statById = new TreeMap<>();
      for (Object metric : metrics.subList(1, metrics.size())) {
        Map<String, Object> stat = map(map(metric).get("MetricStat"));
        String name = (String) map(stat.get("Metric")).get("MetricName");
        statById.put((String) map(metric).get("Id"), name + " " + stat.get("Stat"));
      }
      assertThat(statById)
          .isEqualTo(
              Map.of(
                  "finished",
                  "JobsCommitted SampleCount",
                  "failed",
                  "JobsFailed Sum",
                  "unknown",
                  "JobsUnknown Sum",
                  "contended",
                  "JobsContended Sum"));
      assertThat(sub(p.get("AlarmDescription"))).contains("without FAILED, UNKNOWN or CONTENDED");
      for (Object metric : metrics.subList(1, metrics.size())) {
        Map<String, Object> stat = map(map(metric).get("MetricStat"));
        assertThat(stat.get("Period")).isEqualTo(86400);
        Map<String, Object> m = map(stat.get("Metric"));
        assertThat(m.get("Namespace")).isEqualTo("icecompact");
        assertThat(m.get("Dimensions"))
            .isEqualTo(List.of(Map.of("Name", "Table", "Value", Map.of("Ref", "Table" + i))));
      }
    }
    // The metrics are those ReleaseLease's EMF line carries (core/metrics/JobMetrics).
    String metrics =
        assertDoesNotThrow(
            () ->
                Files.readString(
                    rootDir.resolve(
                        "lease-fn/src/main/java/io/icecompact/lease/metrics/JobMetrics.java")));
    assertThat(metrics)
        .contains("\"JobsCommitted\"", "\"JobsFailed\"", "\"JobsUnknown\"", "\"JobsContended\"");
    Map<String, Object> days = map(map(template.get("Parameters")).get("StaleAfterDays"));
    assertThat(days)
        .containsEntry("Default", 3)
        .containsEntry("MinValue", 1)
        .containsEntry("MaxValue", 7);
  }

  /**
   * The dashboard shows metrics that exist: every SEARCH names a metric JobMetrics or LeaseMetrics
   * emits, every placeholder is a resource of the template (or the region), and it covers what an
   * operator watches.
   */
  @Test
  void theDashboardShowsTheEmittedMetricsOfThisStacksResources() throws IOException {
    Map<String, Object> dashboard = props("OperationsDashboard");
    assertThat(sub(dashboard.get("DashboardName"))).isEqualTo("icecompact-${AWS::StackName}");
    String body = sub(dashboard.get("DashboardBody"));
    JsonNode json = new ObjectMapper().readTree(body);
    String emitted =
        Files.readString(
                rootDir.resolve(
                    "lease-fn/src/main/java/io/icecompact/lease/metrics/JobMetrics.java"))
            + Files.readString(
                rootDir.resolve(
                    "lease-fn/src/main/java/io/icecompact/lease/metrics/LeaseMetrics.java"));
    Pattern searchPattern =
        Pattern.compile("SEARCH\\('\\{icecompact,Table} MetricName=\"(\\w+)\"'");
    Set<String> searched = new TreeSet<>();
    json.findValues("expression")
        .forEach(
            expression -> {
              Matcher search = searchPattern.matcher(expression.asText());
              assertThat(search.find()).as(expression.asText()).isTrue();
              searched.add(search.group(1));
            });
    assertThat(searched)
        .contains(
            "RewrittenBytes",
            "RewrittenDataFiles",
            "AddedDataFiles",
            "JobDuration",
            "JobsCommitted",
            "JobsFailed",
            "JobsContended",
            "LeaseHeld");
    searched.forEach(metric -> assertThat(emitted).as(metric).contains("\"" + metric + "\""));
    Matcher placeholder = Pattern.compile("\\$\\{([^}]+)}").matcher(body);
    while (placeholder.find()) {
      String name = placeholder.group(1);
      assertThat(name.equals("AWS::Region") || resources.containsKey(name)).as(name).isTrue();
    }
    List<String> titles = new ArrayList<>();
    json.get("widgets").forEach(w -> titles.add(w.path("properties").path("title").asText()));
    assertThat(String.join("|", titles))
        .contains(
            "Bytes rewritten per table",
            "Job outcomes",
            "Job duration",
            "Compaction executions",
            "Leases",
            "Errors and throttles",
            "Lambda concurrency");
    assertThat(body)
        .contains(
            "\"Throttles\", \"FunctionName\", \"${RewriteGroupFunction}\"",
            "\"ConcurrentExecutions\"");
  }

  static Map<String, Object> logging(String logGroup) {
    return Map.of(
        "Level",
        Map.of("Ref", "StateMachineLogLevel"),
        "IncludeExecutionData",
        false,
        "Destinations",
        List.of(Map.of("CloudWatchLogsLogGroup", Map.of("LogGroupArn", getAtt(logGroup, "Arn")))));
  }

  /**
   * A state machine's statements other than log delivery and X-Ray (which take no resource-level
   * permission).
   */
  static List<Map<String, Object>> withoutObservability(Object policies) {
    return statements(policies).stream()
        .filter(s -> !"LogDelivery".equals(s.get("Sid")) && !"XRay".equals(s.get("Sid")))
        .toList();
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
  void everyAlarmExists() throws IOException {
    Map<String, Object> alarms = resourcesOfType("AWS::CloudWatch::Alarm");
    assertThat(alarms)
        .containsKeys(
            "ExecutionsFailedAlarm", "ExecutionsTimedOutAlarm", "UnknownOrPartialJobsAlarm");

    Map<String, Object> failed = props("ExecutionsFailedAlarm");
    assertThat(failed.get("Namespace")).isEqualTo("AWS/States");
    assertThat(failed.get("MetricName")).isEqualTo("ExecutionsFailed");
    assertThat(failed.get("Dimensions"))
        .isEqualTo(
            List.of(
                Map.of(
                    "Name", "StateMachineArn", "Value", Map.of("Ref", "CompactionStateMachine"))));

    Map<String, Object> filter = props("UnknownOrPartialJobsMetricFilter");
    assertThat(filter.get("LogGroupName")).isEqualTo(Map.of("Ref", "ReleaseLeaseLogGroup"));
    assertThat((String) filter.get("FilterPattern"))
        .contains(
            "$.icecompact = \"job\"",
            "$.status = \"UNKNOWN\"",
            "$.status = \"PARTIAL\"",
            "$.status = \"CONTENDED\"");
    Map<String, Object> transformation = map(asList(filter.get("MetricTransformations")).get(0));
    Map<String, Object> partial = props("UnknownOrPartialJobsAlarm");
    assertThat(partial.get("Namespace")).isEqualTo(transformation.get("MetricNamespace"));
    assertThat(partial.get("MetricName")).isEqualTo(transformation.get("MetricName"));
    // The log line the filter reads is written by ReleaseLeaseHandler.
    String handler =
        Files.readString(
            rootDir.resolve(
                "lease-fn/src/main/java/io/icecompact/lease/lambda/ReleaseLeaseHandler.java"));
    assertThat(handler).contains("line.put(\"icecompact\", \"job\")", "line.put(\"status\"");

    for (Object alarm : alarms.values()) {
      assertThat(strings(map(alarm).get("Properties"))).contains("AlarmTopicArn");
    }
  }

  // ------------------------------------------------------------------ the sweep

  @Test
  void theSweepParametersHaveTheirDefaultsAndNoNamespaceMeansNoSweepSchedule() {
    Map<String, Object> parameters = map(template.get("Parameters"));
    assertThat(map(parameters.get("SweepNamespaces")).get("Default")).isEqualTo("");
    assertThat(map(parameters.get("SweepSchedule")).get("Default")).isEqualTo("rate(1 day)");
    assertThat(map(parameters.get("SweepMaxTables")).get("Default")).isEqualTo(10);
    assertThat(map(parameters.get("SweepMaxConcurrentTables")).get("Default")).isEqualTo(4);
    // Fn::Split cannot trim: a space or a quote in the list would end up in a namespace or break
    // the JSON input.
    Pattern namespaces =
        Pattern.compile((String) map(parameters.get("SweepNamespaces")).get("AllowedPattern"));
    assertThat(List.of("", "analytics", "analytics,sales.raw"))
        .allMatch(v -> namespaces.matcher(v).matches());
    assertThat(List.of("analytics, sales", "a\"b", "a\\b", "analytics,", ",analytics"))
        .noneMatch(v -> namespaces.matcher(v).matches());

    assertThat(map(template.get("Conditions")).get("ScheduleSweep"))
        .isEqualTo(
            Map.of(
                "Fn::Not",
                List.of(Map.of("Fn::Equals", List.of(Map.of("Ref", "SweepNamespaces"), "")))));
    assertThat(map(resources.get("SweepNamespacesSchedule")).get("Condition"))
        .isEqualTo("ScheduleSweep");
    assertThat(map(resources.get("SweepSchedulerRole")).get("Condition"))
        .isEqualTo("ScheduleSweep");
    // The state machine, its function and its alarm exist without a schedule: a sweep can be
    // started by hand.
    for (String always :
        List.of(
            "SweepStateMachine",
            "AssessTablesFunction",
            "AssessTablesLogGroup",
            "SweepExecutionsFailedAlarm")) {
      assertThat(map(resources.get(always))).as(always).doesNotContainKey("Condition");
    }
  }

  @Test
  void theSweepStateMachineRunsSweepAslJsonWithAssessTablesAndTheCompactionStateMachine()
      throws IOException {
    Map<String, Object> sweep = props("SweepStateMachine");
    assertThat(sweep.get("DefinitionUri")).isEqualTo("../state-machine/sweep.asl.json");
    assertThat(sweep.get("Type")).isEqualTo("STANDARD");
    assertThat(sub(sweep.get("Name"))).isEqualTo("${AWS::StackName}-sweep");
    assertThat(sweep.get("Logging")).isEqualTo(logging("SweepStateMachineLogGroup"));
    assertThat(sweep.get("Tracing")).isEqualTo(props("CompactionStateMachine").get("Tracing"));

    Path file = infraDir.resolve((String) sweep.get("DefinitionUri")).normalize();
    Set<String> placeholders = new TreeSet<>();
    Matcher m =
        Pattern.compile("\\$\\{([^}]+)}").matcher(Files.readString(file, StandardCharsets.UTF_8));
    while (m.find()) {
      placeholders.add(m.group(1));
    }
    assertThat(sweep.get("DefinitionSubstitutions"))
        .isEqualTo(
            Map.of(
                "AssessTablesFunctionArn", getAtt("AssessTablesFunction", "Arn"),
                "CompactionStateMachineArn", Map.of("Ref", "CompactionStateMachine")));
    assertThat(placeholders).isEqualTo(map(sweep.get("DefinitionSubstitutions")).keySet());
  }

  /**
   * The sweep's role: invoke AssessTables, start the compaction state machine and follow or stop
   * its executions (startExecution.sync:2), and the managed EventBridge rule .sync needs; every
   * resource named.
   */
  @Test
  void theSweepStateMachineMayOnlyInvokeAssessTablesAndRunCompactions() {
    Map<String, Object> bySid = new TreeMap<>();
    for (Map<String, Object> s : withoutObservability(props("SweepStateMachine").get("Policies"))) {
      assertThat(s.get("Effect")).isEqualTo("Allow");
      bySid.put(
          (String) s.get("Sid"),
          Map.of(
              "Action", new TreeSet<>(asStrings(s.get("Action"))), "Resource", s.get("Resource")));
    }
    String arn = "arn:${AWS::Partition}:";
    assertThat(bySid)
        .isEqualTo(
            Map.of(
                "InvokeAssessTables",
                    Map.of(
                        "Action",
                        Set.of("lambda:InvokeFunction"),
                        "Resource",
                        getAtt("AssessTablesFunction", "Arn")),
                "StartCompactionExecutions",
                    Map.of(
                        "Action",
                        Set.of("states:StartExecution"),
                        "Resource",
                        Map.of("Ref", "CompactionStateMachine")),
                "ManageCompactionExecutions",
                    Map.of(
                        "Action",
                        Set.of("states:DescribeExecution", "states:StopExecution"),
                        "Resource",
                        Map.of(
                            "Fn::Sub",
                            arn
                                + "states:${AWS::Region}:${AWS::AccountId}:execution:"
                                + sub(props("CompactionStateMachine").get("Name"))
                                + ":*")),
                "SyncExecutionEvents",
                    Map.of(
                        "Action",
                        Set.of("events:PutTargets", "events:PutRule", "events:DescribeRule"),
                        "Resource",
                        Map.of(
                            "Fn::Sub",
                            arn
                                + "events:${AWS::Region}:${AWS::AccountId}:rule/"
                                + "StepFunctionsGetEventsForStepFunctionsExecutionRule"))));
  }

  /**
   * AssessTables runs in the planner's jar like the planner, and reads: no write or delete
   * anywhere.
   */
  @Test
  void assessTablesIsThePlannersJarAndOnlyReads() {
    Map<String, Object> assess = props("AssessTablesFunction");
    Map<String, Object> planner = props("PlanRewriteFunction");
    assertThat(assess.get("Handler"))
        .isEqualTo("io.icecompact.planner.lambda.AssessTablesHandler::handleRequest");
    for (String key : List.of("CodeUri", "MemorySize", "Timeout")) {
      assertThat(assess.get(key)).as(key).isEqualTo(planner.get(key));
    }
    Map<String, Object> plannersWithoutRole = new TreeMap<>(environment("PlanRewriteFunction"));
    plannersWithoutRole.remove("TABLE_ACCESS_ROLE_ARN");
    assertThat(new TreeMap<>(environment("AssessTablesFunction")))
        .as("the planner's environment but the role it writes through: AssessTables writes nothing")
        .isEqualTo(plannersWithoutRole);
    assertThat(strings(assess.get("Policies")))
        .as("no lease table, no work location")
        .doesNotContain("LeaseTable", "WorkBucket", "ExistingWorkBucket");
    assertThat(actions(assess.get("Policies")))
        .containsExactlyInAnyOrder(
            "s3:ListBucket",
            "s3:GetObject",
            "glue:GetDatabase",
            "glue:GetTables",
            "glue:GetTable",
            "dynamodb:DescribeTable",
            "dynamodb:GetItem",
            "dynamodb:Query",
            // the warehouse's KMS keys, when given: reading is decrypting (it writes nothing)
            "kms:Decrypt");
    for (Map<String, Object> s : statements(assess.get("Policies"))) {
      if (asStrings(s.get("Action")).contains("s3:GetObject")) {
        assertThat(sub(s.get("Resource"))).endsWith("${WarehousePrefix}*/metadata/*");
      }
    }
    // The access policy for REST/JDBC catalogs reaches it as it reaches the planner.
    assertThat(asList(assess.get("Policies")).get(0))
        .isEqualTo(asList(planner.get("Policies")).get(0));
  }

  @Test
  void theSweepScheduleStartsTheSweepWithTheNamespacesAndTheTablesCatalog() throws IOException {
    Map<String, Object> schedule = props("SweepNamespacesSchedule");
    assertThat(schedule.get("ScheduleExpression")).isEqualTo(Map.of("Ref", "SweepSchedule"));
    assertThat(schedule.get("ScheduleExpressionTimezone"))
        .isEqualTo(Map.of("Ref", "ScheduleTimezone"));
    Map<String, Object> target = map(schedule.get("Target"));
    assertThat(target.get("Arn")).isEqualTo(Map.of("Ref", "SweepStateMachine"));
    assertThat(target.get("RoleArn")).isEqualTo(getAtt("SweepSchedulerRole", "Arn"));

    List<Object> input = asList(map(target.get("Input")).get("Fn::Sub"));
    Map<String, Object> variables = map(input.get(1));
    // The same catalog properties as the table schedules'.
    Map<String, Object> tableInput =
        map(map(props("CompactTable1Schedule").get("Target")).get("Input"));
    assertThat(variables.get("Catalog"))
        .isEqualTo(map(asList(tableInput.get("Fn::Sub")).get(1)).get("Catalog"));
    assertThat(variables.get("Namespaces"))
        .isEqualTo(
            Map.of(
                "Fn::Join",
                List.of(
                    "\", \"",
                    Map.of("Fn::Split", List.of(",", Map.of("Ref", "SweepNamespaces"))))));
    // What CloudFormation makes of it for SweepNamespaces=analytics,sales.raw.
    String filled =
        ((String) input.get(0))
            .replace("${Catalog}", "{\"type\": \"glue\", \"warehouse\": \"s3://w/warehouse/\"}")
            .replace("${Namespaces}", String.join("\", \"", "analytics,sales.raw".split(",")))
            .replace("${SweepMaxTables}", "10")
            .replace("${SweepMaxConcurrentTables}", "4")
            .replace("${Bucket}", "work-bucket")
            .replace("${WorkPrefix}", "icecompact/jobs/")
            .replace(
                "${CareSteps}",
                (String) render(variables.get("CareSteps"), Map.of("SweepCareSteps", "")));
    assertThat(filled).doesNotContain("${");
    assertThat(new ObjectMapper().readValue(filled, Map.class))
        .isEqualTo(
            Map.of(
                "catalog_properties",
                Map.of("type", "glue", "warehouse", "s3://w/warehouse/"),
                "namespaces",
                List.of("analytics", "sales.raw"),
                "max_tables",
                10,
                "max_concurrent_tables",
                4,
                "work_location",
                "s3://work-bucket/icecompact/jobs/"));

    List<Map<String, Object>> statements =
        statements(
            asList(map(props("SweepSchedulerRole")).get("Policies")).stream()
                .map(p -> map(p).get("PolicyDocument"))
                .toList());
    assertThat(statements)
        .hasSize(2)
        .first()
        .satisfies(
            s -> {
              assertThat(asStrings(s.get("Action"))).containsExactly("states:StartExecution");
              assertThat(s.get("Resource")).isEqualTo(Map.of("Ref", "SweepStateMachine"));
            });
    assertThat(statements.get(1)).isEqualTo(DEAD_LETTERS);
    assertThat(props("SweepSchedulerRole").get("AssumeRolePolicyDocument"))
        .isEqualTo(props("SchedulerRole").get("AssumeRolePolicyDocument"));
  }

  /**
   * SweepCareSteps reaches the schedule's input as {@code care_steps}: left out when empty (the
   * sweep's own defaults, which delete nothing), [] for none, else the list; each input, rendered
   * as CloudFormation would, is a valid sweep input. The pattern keeps out what Fn::Split cannot
   * trim or the schema refuses.
   */
  @Test
  void sweepCareStepsBecomesTheScheduleInputsCareStepsOrIsLeftOut() throws IOException {
    Map<String, Object> parameter = map(map(template.get("Parameters")).get("SweepCareSteps"));
    assertThat(parameter.get("Default")).isEqualTo("");
    assertThat(
            asList(
                map(asList(
                            map(map(template.get("Metadata")).get("AWS::CloudFormation::Interface"))
                                .get("ParameterGroups"))
                        .get(3))
                    .get("Parameters")))
        .contains("SweepNamespaces", "SweepCareSteps");
    Pattern allowed = Pattern.compile((String) parameter.get("AllowedPattern"));
    assertThat(
            List.of(
                "",
                "none",
                "expire-snapshots",
                "rewrite-manifests,expire-snapshots,remove-orphans",
                "delete-cleanup,rewrite-manifests,expire-snapshots,remove-orphans"))
        .allMatch(v -> allowed.matcher(v).matches());
    assertThat(
            List.of(
                "expire-snapshots, remove-orphans",
                "expire_snapshots",
                "none,expire-snapshots",
                "expire-snapshots,",
                "NONE",
                "all"))
        .noneMatch(v -> allowed.matcher(v).matches());

    JsonNode schema =
        new ObjectMapper()
            .readTree(rootDir.resolve("state-machine/sweep-input.schema.json").toFile());
    assertThat(parameter.get("Description").toString())
        .contains(
            String.join(
                ", ",
                asStrings(
                    new ObjectMapper()
                        .convertValue(
                            schema.at("/properties/care_steps/items/enum"), List.class))));

    List<Object> input =
        asList(
            map(map(props("SweepNamespacesSchedule").get("Target")).get("Input")).get("Fn::Sub"));
    Object careSteps = map(input.get(1)).get("CareSteps");
    Map<String, Object> byValue = new java.util.LinkedHashMap<>();
    byValue.put("", null);
    byValue.put("none", List.of());
    byValue.put("expire-snapshots,remove-orphans", List.of("expire-snapshots", "remove-orphans"));
    for (Map.Entry<String, Object> e : byValue.entrySet()) {
      String filled =
          ((String) input.get(0))
              .replace("${Catalog}", "{\"type\": \"glue\", \"warehouse\": \"s3://w/warehouse/\"}")
              .replace("${Namespaces}", "analytics")
              .replace("${SweepMaxTables}", "10")
              .replace("${SweepMaxConcurrentTables}", "4")
              .replace("${Bucket}", "work-bucket")
              .replace("${WorkPrefix}", "icecompact/jobs/")
              .replace(
                  "${CareSteps}", (String) render(careSteps, Map.of("SweepCareSteps", e.getKey())));
      JsonNode sweepInput = new ObjectMapper().readTree(filled);
      assertThat(sweepInput.has("care_steps")).as(e.getKey()).isEqualTo(e.getValue() != null);
      if (e.getValue() != null) {
        assertThat(new ObjectMapper().convertValue(sweepInput.get("care_steps"), List.class))
            .as(e.getKey())
            .isEqualTo(e.getValue());
      }
      assertThat(SweepInputSchema.problems(schema, sweepInput)).as(filled).isEmpty();
    }
  }

  /**
   * The few intrinsics SweepCareSteps's input uses, as CloudFormation evaluates them (conditions
   * included).
   */
  static Object render(Object node, Map<String, String> parameters) {
    if (!(node instanceof Map<?, ?>)) {
      return node;
    }
    Map<String, Object> m = map(node);
    String function = m.keySet().iterator().next();
    Object argument = m.get(function);
    return switch (function) {
      case "Ref" -> parameters.get((String) argument);
      case "Condition" ->
          render(map(template.get("Conditions")).get((String) argument), parameters);
      case "Fn::Equals" ->
          render(asList(argument).get(0), parameters)
              .equals(render(asList(argument).get(1), parameters));
      case "Fn::Not" -> !(Boolean) render(asList(argument).get(0), parameters);
      case "Fn::If" ->
          (Boolean) render(Map.of("Condition", asList(argument).get(0)), parameters)
              ? render(asList(argument).get(1), parameters)
              : render(asList(argument).get(2), parameters);
      case "Fn::Split" ->
          List.of(
              ((String) render(asList(argument).get(1), parameters))
                  .split(Pattern.quote((String) asList(argument).get(0)), -1));
      case "Fn::Join" -> {
        Object pieces = asList(argument).get(1);
        List<?> rendered =
            pieces instanceof List<?> list
                ? list.stream().map(p -> render(p, parameters)).toList()
                : (List<?>) render(pieces, parameters);
        yield rendered.stream()
            .map(String::valueOf)
            .collect(Collectors.joining((String) asList(argument).get(0)));
      }
      default -> throw new AssertionError("not rendered here: " + function);
    };
  }

  /**
   * SweepMaxTables and SweepMaxConcurrentTables take exactly what sweep-input.schema.json accepts
   * for max_tables and max_concurrent_tables: outside, the deploy would succeed and every sweep
   * then fail its input validation.
   */
  @Test
  void theSweepParametersBoundsAreTheSweepInputSchemas() throws IOException {
    JsonNode schema =
        new ObjectMapper()
            .readTree(rootDir.resolve("state-machine/sweep-input.schema.json").toFile());
    Map<String, Object> parameters = map(template.get("Parameters"));
    Map<String, String> fieldOf =
        Map.of("SweepMaxTables", "max_tables", "SweepMaxConcurrentTables", "max_concurrent_tables");
    fieldOf.forEach(
        (parameter, field) -> {
          JsonNode property = schema.at("/properties/" + field);
          Map<String, Object> p = map(parameters.get(parameter));
          assertThat(p.get("MinValue")).as(parameter).isEqualTo(property.get("minimum").asInt());
          assertThat(p.get("MaxValue")).as(parameter).isEqualTo(property.get("maximum").asInt());
          assertThat(p.get("Default")).as(parameter).isEqualTo(property.get("default").asInt());
        });
    // The schedule's input at the parameters' maxima is a valid sweep input; one above would not
    // be.
    String atMaxima =
        filledSweepInput()
            .replace(
                "\"max_tables\": 10",
                "\"max_tables\": " + map(parameters.get("SweepMaxTables")).get("MaxValue"))
            .replace(
                "\"max_concurrent_tables\": 4",
                "\"max_concurrent_tables\": "
                    + map(parameters.get("SweepMaxConcurrentTables")).get("MaxValue"));
    assertThat(SweepInputSchema.problems(schema, new ObjectMapper().readTree(atMaxima)))
        .as(atMaxima)
        .isEmpty();
    String above = atMaxima.replace("\"max_tables\": 100", "\"max_tables\": 101");
    assertThat(above).isNotEqualTo(atMaxima);
    assertThat(SweepInputSchema.problems(schema, new ObjectMapper().readTree(above))).isNotEmpty();
  }

  /**
   * The sweep catches a table's failed compaction (sweep.asl.json's CompactTable catches
   * States.ALL), so the sweep's ExecutionsFailed counts only sweeps that failed as a whole: its
   * alarm must not claim table failures.
   */
  @Test
  void theSweepAlarmSaysWhatFailsASweep() throws IOException {
    JsonNode compactTable =
        new ObjectMapper()
            .readTree(rootDir.resolve("state-machine/sweep.asl.json").toFile())
            .at("/States/CompactTables/ItemProcessor/States/CompactTable");
    assertThat(compactTable.isMissingNode()).isFalse();
    assertThat(compactTable.get("Catch").toString()).contains("States.ALL");
    String description = words(props("SweepExecutionsFailedAlarm").get("AlarmDescription"));
    assertThat(description)
        .contains("failed as a whole", "does not fail the sweep", "ExecutionsFailedAlarm")
        .doesNotContain("or a table's compaction failed");
  }

  /**
   * Stateful resources stay when the stack goes or a resource is replaced: the lease table (job
   * log), the log groups and the schedules' dead-letter queue (the record of starts that never
   * happened). The created work bucket is the exception: its artefacts expire anyway.
   */
  @Test
  void statefulResourcesAreRetained() {
    Set<String> stateful = new TreeSet<>();
    resources.forEach(
        (name, resource) -> {
          String type = (String) map(resource).get("Type");
          if (Set.of("AWS::DynamoDB::Table", "AWS::Logs::LogGroup", "AWS::SQS::Queue")
              .contains(type)) {
            stateful.add(name);
            assertThat(map(resource).get("DeletionPolicy")).as(name).isEqualTo("Retain");
            assertThat(map(resource).get("UpdateReplacePolicy")).as(name).isEqualTo("Retain");
          }
        });
    assertThat(stateful).contains("LeaseTable", "ScheduleDeadLetterQueue", "AcquireLeaseLogGroup");
  }

  /** Step Functions' limit on a state machine's name. */
  static final int STATE_MACHINE_NAME_LIMIT = 80;

  /**
   * The state machines are named {@code ${AWS::StackName}-<suffix>}. CloudFormation cannot refuse a
   * stack name that would make them longer than Step Functions' 80 characters (no string length
   * function; Rules see parameters only), so the bound is the documented one, and it must be what
   * the names need: 80 minus the longest suffix, the same number infra/cdk checks
   * (MAX_NAME_LENGTH). Renaming them to something bounded (e.g. from the stack id) would replace
   * both state machines on update: a decision for the maintainers, not a lint fix.
   */
  @Test
  void theDocumentedStackNameBoundIsWhatTheStateMachineNamesNeed() throws IOException {
    int longestSuffix = 0;
    for (String machine : List.of("CompactionStateMachine", "SweepStateMachine")) {
      String name = sub(props(machine).get("Name"));
      assertThat(name).as(machine).startsWith("${AWS::StackName}-");
      String suffix = name.substring("${AWS::StackName}".length());
      assertThat(suffix).as(machine).doesNotContain("${").matches("[A-Za-z0-9_-]+");
      longestSuffix = Math.max(longestSuffix, suffix.length());
    }
    int bound = STATE_MACHINE_NAME_LIMIT - longestSuffix;
    assertThat(bound).isEqualTo(69);
    String deploy = words(Files.readString(rootDir.resolve("docs/deploy.md")));
    assertThat(deploy)
        .contains(
            "Choose a stack name of at most " + bound + " characters",
            "keep SAM stack names to " + bound + " characters");
    assertThat(
            Files.readString(
                rootDir.resolve(
                    "infra/cdk/src/main/java/io/icecompact/infra/cdk/IcebergCompaction.java")))
        .contains("MAX_NAME_LENGTH = " + bound + ";");
  }

  @Test
  void aFailedSweepAlarmsLikeAFailedCompactionAndTheOutputsNameTheSweep() {
    Map<String, Object> sweep = new TreeMap<>(props("SweepExecutionsFailedAlarm"));
    Map<String, Object> compaction = new TreeMap<>(props("ExecutionsFailedAlarm"));
    assertThat(sweep.remove("Dimensions"))
        .isEqualTo(
            List.of(
                Map.of("Name", "StateMachineArn", "Value", Map.of("Ref", "SweepStateMachine"))));
    compaction.remove("Dimensions");
    sweep.remove("AlarmDescription");
    compaction.remove("AlarmDescription");
    assertThat(sweep).isEqualTo(compaction);
    assertThat(map(map(template.get("Outputs")).get("SweepStateMachineArn")).get("Value"))
        .isEqualTo(Map.of("Ref", "SweepStateMachine"));
  }

  @Test
  void cfnLintAcceptsTheTemplate() throws Exception {
    String cfnLint = onPath("cfn-lint");
    Assumptions.assumeTrue(
        cfnLint != null, "cfn-lint is not on PATH: skipping the lint of template.yaml");
    Process process =
        new ProcessBuilder(cfnLint, "template.yaml")
            .directory(infraDir.toFile())
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(process.exitValue()).as("cfn-lint output:%n%s", output).isZero();
  }

  // ------------------------------------------------------------------ helpers

  static Path definitionFile() {
    return infraDir
        .resolve((String) props("CompactionStateMachine").get("DefinitionUri"))
        .normalize();
  }

  static String onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, command);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  static Map<String, Object> props(String logicalId) {
    Map<String, Object> resource = map(resources.get(logicalId));
    assertThat(resource).as(logicalId).isNotNull();
    return map(resource.get("Properties"));
  }

  /** A function's environment variables (empty when it has none). */
  static Map<String, Object> environment(String function) {
    Object environment = props(function).get("Environment");
    return environment == null ? Map.of() : map(map(environment).get("Variables"));
  }

  static String type(String logicalId) {
    return (String) map(resources.get(logicalId)).get("Type");
  }

  static Map<String, Object> resourcesOfType(String type) {
    Map<String, Object> result = new TreeMap<>();
    resources.forEach(
        (name, resource) -> {
          if (type.equals(map(resource).get("Type"))) {
            result.put(name, resource);
          }
        });
    return result;
  }

  static Map<String, Object> getAtt(String logicalId, String attribute) {
    return Map.of("Fn::GetAtt", List.of(logicalId, attribute));
  }

  static String sub(Object value) {
    return (String) map(value).get("Fn::Sub");
  }

  /** Every policy statement under a value (Policies list, policy document, Fn::If branches). */
  static List<Map<String, Object>> statements(Object value) {
    return PolicyStatements.under(value);
  }

  private static boolean writesS3(String action) {
    return action.startsWith("s3:Put")
        || action.startsWith("s3:Delete")
        || action.equals("s3:AbortMultipartUpload")
        || action.equals("s3:*");
  }

  /** A policy's statements by Sid. */
  static Map<String, Map<String, Object>> bySid(Object policies) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> s : statements(policies)) {
      assertThat(out.put((String) s.get("Sid"), s)).as("Sid " + s.get("Sid") + " twice").isNull();
    }
    return out;
  }

  /** The text of an {@code Fn::Sub}, with or without its variable map. */
  static String subText(Object value) {
    Object sub = map(value).get("Fn::Sub");
    return sub instanceof List<?> l ? (String) l.get(0) : (String) sub;
  }

  static List<String> actions(Object policies) {
    return statements(policies).stream().flatMap(s -> asStrings(s.get("Action")).stream()).toList();
  }

  /** Every string anywhere under a value (keys and values). */
  static Set<String> strings(Object value) {
    Set<String> out = new TreeSet<>();
    collectStrings(value, out);
    return out;
  }

  private static void collectStrings(Object value, Set<String> out) {
    if (value instanceof String s) {
      out.add(s);
    } else if (value instanceof Map<?, ?> m) {
      for (Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<?, ?> e = it.next();
        collectStrings(e.getKey(), out);
        collectStrings(e.getValue(), out);
      }
    } else if (value instanceof List<?> l) {
      l.forEach(v -> collectStrings(v, out));
    }
  }

  static List<String> asStrings(Object value) {
    return asList(value).stream().map(String.class::cast).toList();
  }

  @SuppressWarnings("unchecked")
  static List<Object> asList(Object value) {
    return value instanceof List<?> l ? (List<Object>) l : List.of(value);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  static <T> T assertDoesNotThrow(ThrowingSupplier<T> supplier) {
    try {
      return supplier.get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  interface ThrowingSupplier<T> {
    T get() throws Exception;
  }
}
