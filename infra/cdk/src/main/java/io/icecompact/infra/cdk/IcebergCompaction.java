package io.icecompact.infra.cdk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Size;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.Token;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.CfnAlarm;
import software.amazon.awscdk.services.cloudwatch.CfnDashboard;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.Unit;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.iam.ArnPrincipal;
import software.amazon.awscdk.services.iam.CfnRole;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.IManagedPolicy;
import software.amazon.awscdk.services.iam.IRole;
import software.amazon.awscdk.services.iam.ManagedPolicy;
import software.amazon.awscdk.services.iam.PolicyDocument;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.CfnFunction;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.IFunction;
import software.amazon.awscdk.services.lambda.LoggingFormat;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SystemLogLevel;
import software.amazon.awscdk.services.logs.FilterPattern;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.MetricFilter;
import software.amazon.awscdk.services.s3.BlockPublicAccess;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.s3.BucketEncryption;
import software.amazon.awscdk.services.s3.IBucket;
import software.amazon.awscdk.services.s3.LifecycleRule;
import software.amazon.awscdk.services.s3.ObjectOwnership;
import software.amazon.awscdk.services.scheduler.CfnSchedule;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.stepfunctions.CfnStateMachine;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
import software.constructs.Construct;

/**
 * icecompact on AWS, as infra/template.yaml deploys it: the eight functions (java21, arm64), the
 * compaction state machine from state-machine/compaction.asl.json, the sweep state machine from
 * state-machine/sweep.asl.json, the lease/job-log table, the work location, one EventBridge
 * Scheduler schedule per table and one for the sweep (when it has namespaces) and the alarms, with
 * the template's least-privilege roles. Construct ids are the template's logical ids, so the two
 * read alike.
 */
public class IcebergCompaction extends Construct {
  /**
   * The line ReleaseLeaseHandler prints per job, for the jobs that end UNKNOWN, PARTIAL or
   * CONTENDED.
   */
  static final String CARE_REFUSED_OR_FAILED_PATTERN = "{ $.icecompact = \"care\" }";

  static final String UNKNOWN_OR_PARTIAL_PATTERN =
      "{ ($.icecompact = \"job\") && (($.status = \"UNKNOWN\") || ($.status = \"PARTIAL\")"
          + " || ($.status = \"CONTENDED\")) }";

  private final IcebergCompactionProps props;
  private final String name;
  private final ITable leaseTable;
  private final IBucket workBucket;
  private IRole tableAccessRole;
  private final Map<CompactionFunction, Function> functions =
      new EnumMap<>(CompactionFunction.class);
  private final Map<CompactionFunction, LogGroup> logGroups =
      new EnumMap<>(CompactionFunction.class);
  private final StateMachine stateMachine;
  private final StateMachine sweepStateMachine;
  private final Map<String, CfnSchedule> schedules = new LinkedHashMap<>();
  private CfnSchedule sweepSchedule;
  private Queue scheduleDeadLetterQueue;
  private final List<Alarm> alarms = new ArrayList<>();
  private final Map<String, CfnAlarm> stalenessAlarms = new LinkedHashMap<>();
  private final CfnDashboard dashboard;

  /** State machine names allow 80 characters; "-compaction" takes 11. */
  static final int MAX_NAME_LENGTH = 69;

  public IcebergCompaction(Construct scope, String id, IcebergCompactionProps props) {
    super(scope, id);
    this.props = props;
    // The stack's name by default, as the SAM template names things with ${AWS::StackName}.
    this.name = props.name().orElse(Aws.STACK_NAME);
    if (props.name().isEmpty()) {
      String stackName = Stack.of(this).getStackName();
      // State machine names allow 80 characters: fail here rather than halfway through a
      // deployment.
      PropsCheck.that(
          Token.isUnresolved(stackName) || stackName.length() <= MAX_NAME_LENGTH,
          "the stack name '"
              + stackName
              + "' has "
              + stackName.length()
              + " characters but names the state machines ('<name>-compaction',"
              + " at most 80 characters), so it must have at most "
              + MAX_NAME_LENGTH
              + "; set 'name' to a shorter one");
    }
    this.leaseTable = createLeaseTable();
    this.workBucket = props.workBucket().orElseGet(this::createWorkBucket);
    createFunctions();
    this.stateMachine = createStateMachine();
    this.sweepStateMachine = createSweepStateMachine();
    if (!props.tables().isEmpty() || !props.sweepNamespaces().isEmpty()) {
      this.scheduleDeadLetterQueue = createScheduleDeadLetterQueue();
    }
    if (!props.tables().isEmpty()) {
      createSchedules();
    }
    if (!props.sweepNamespaces().isEmpty()) {
      this.sweepSchedule = createSweepSchedule();
    }
    createAlarms();
    this.dashboard = createDashboard();
  }

  public StateMachine stateMachine() {
    return stateMachine;
  }

  /**
   * The sweep: assesses the tables of namespaces, then runs the compaction state machine on the top
   * ones.
   */
  public StateMachine sweepStateMachine() {
    return sweepStateMachine;
  }

  /** The sweep's schedule; empty without sweep namespaces. */
  public Optional<CfnSchedule> sweepSchedule() {
    return Optional.ofNullable(sweepSchedule);
  }

  /** Where schedules put the starts they could not make; empty without schedules. */
  public Optional<Queue> scheduleDeadLetterQueue() {
    return Optional.ofNullable(scheduleDeadLetterQueue);
  }

  public ITable leaseTable() {
    return leaseTable;
  }

  public IBucket workBucket() {
    return workBucket;
  }

  public String workPrefix() {
    return props.workPrefix();
  }

  /**
   * The {@code work_location} the schedules (the tables' and the sweep's) pass: {@code s3://<work
   * bucket>/<work prefix>}. A job appends its table identifier, lower-cased, and its job id (core's
   * WorkLocation).
   */
  public String workLocation() {
    return "s3://" + workBucket.getBucketName() + "/" + props.workPrefix();
  }

  /**
   * Where a table's jobs go with {@link #workLocation()}: {@code s3://<work bucket>/<work
   * prefix><table>}, the identifier lower-cased as core's WorkLocation does; each job has a folder
   * of its own there.
   */
  public String workLocation(String table) {
    return workLocation() + table.toLowerCase(java.util.Locale.ROOT);
  }

  public IFunction function(CompactionFunction function) {
    return functions.get(function);
  }

  /** The role CommitSnapshot and CareForTable assume with a table's session policy. */
  public IRole tableAccessRole() {
    return tableAccessRole;
  }

  /** The schedules by table identifier. */
  public Map<String, CfnSchedule> schedules() {
    return Collections.unmodifiableMap(schedules);
  }

  public List<Alarm> alarms() {
    return Collections.unmodifiableList(alarms);
  }

  /** The operations dashboard, {@code icecompact-<name>} (see {@link OperationsDashboard}). */
  public CfnDashboard dashboard() {
    return dashboard;
  }

  /** The staleness alarm of each scheduled table, by table identifier. */
  public Map<String, CfnAlarm> stalenessAlarms() {
    return Collections.unmodifiableMap(stalenessAlarms);
  }

  private ITable createLeaseTable() {
    // On demand: a few writes per job cost nothing when idle. Retained when the stack is deleted
    // (job log).
    return Table.Builder.create(this, "LeaseTable")
        .partitionKey(Attribute.builder().name("pk").type(AttributeType.STRING).build())
        .sortKey(Attribute.builder().name("sk").type(AttributeType.STRING).build())
        .billingMode(BillingMode.PAY_PER_REQUEST)
        // job log entries carry expires_at_epoch_s (90 days after the job); lease items do not
        .timeToLiveAttribute("expires_at_epoch_s")
        .pointInTimeRecoverySpecification(
            PointInTimeRecoverySpecification.builder().pointInTimeRecoveryEnabled(true).build())
        .encryption(TableEncryption.AWS_MANAGED)
        .removalPolicy(RemovalPolicy.RETAIN)
        .build();
  }

  private IBucket createWorkBucket() {
    // Deleted with the stack like the SAM template's (CloudFormation refuses while it holds
    // objects).
    return Bucket.Builder.create(this, "WorkBucket")
        .encryption(BucketEncryption.S3_MANAGED)
        .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
        .objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED)
        .lifecycleRules(
            List.of(
                LifecycleRule.builder()
                    .id("ExpireJobArtefacts")
                    .enabled(true)
                    .prefix(props.workPrefix())
                    .expiration(Duration.days(props.workArtefactRetentionDays()))
                    .abortIncompleteMultipartUploadAfter(Duration.days(1))
                    .build()))
        // Plain HTTP refused: a Deny on aws:SecureTransport false, as the template's
        // WorkBucketPolicy.
        .enforceSsl(true)
        .removalPolicy(RemovalPolicy.DESTROY)
        .build();
  }

  private void createFunctions() {
    FunctionPermissions permissions =
        new FunctionPermissions(
            props.catalog(),
            props.warehouseBucket().getBucketName(),
            props.warehousePrefix(),
            workBucket.getBucketName(),
            props.workPrefix(),
            leaseTable.getTableArn(),
            props.warehouseKmsKeyArns());
    // The deployment's catalog (core's DeployedCatalog): an input may not change it. Tokens (a
    // bucket made by the stack) resolve inside the JSON, as in the schedules' inputs.
    String catalogPropertiesJson = Stack.of(this).toJsonString(scheduleCatalogProperties());
    // Both functions of a module share one Code, hence one asset.
    Map<String, Code> code = new HashMap<>();
    for (CompactionFunction f : CompactionFunction.values()) {
      LogGroup logGroup =
          LogGroup.Builder.create(this, f.step() + "LogGroup")
              .logGroupName("/icecompact/" + name + "/" + f.logGroupSuffix())
              .retention(props.logRetention())
              // Kept after the stack (the record of what each step did), expiring with the
              // retention anyway.
              .removalPolicy(RemovalPolicy.RETAIN)
              .build();
      logGroups.put(f, logGroup);

      FunctionSize size = props.functionSize(f);
      Function.Builder builder =
          Function.Builder.create(this, f.step() + "Function")
              .description(f.description())
              .runtime(Runtime.JAVA_21)
              .architecture(
                  Architecture.ARM_64) // Graviton: cheaper per GB-second; the jars are pure Java.
              .handler(f.handler())
              .code(code.computeIfAbsent(f.module(), props.functionCode()::forModule))
              .memorySize(size.memoryMb())
              .timeout(Duration.seconds(size.timeoutSeconds()))
              .logGroup(logGroup)
              // One JSON object per line; Lambda filters by the level each event carries.
              .loggingFormat(LoggingFormat.JSON)
              .applicationLogLevelV2(props.logLevel())
              .systemLogLevelV2(SystemLogLevel.INFO)
              .role(functionRole(f, permissions.statementsOf(f)));
      if (f == CompactionFunction.REWRITE_GROUP) {
        props.workerReservedConcurrency().ifPresent(builder::reservedConcurrentExecutions);
      }
      if (size.ephemeralStorageMb() != FunctionSize.DEFAULT_EPHEMERAL_STORAGE_MB) {
        builder.ephemeralStorageSize(Size.mebibytes(size.ephemeralStorageMb()));
      }
      Map<String, String> environment = new LinkedHashMap<>();
      if (f.usesLeaseTable()) {
        environment.put("LEASE_TABLE", leaseTable.getTableName());
      }
      environment.put("CATALOG_PROPERTIES", catalogPropertiesJson);
      environment.put("ALLOWED_TABLES", props.catalog().allowedTables());
      environment.put("ALLOWED_LOCATIONS", allowedLocations());
      environment.put("JAVA_TOOL_OPTIONS", f.javaToolOptions());
      builder.environment(environment);
      Function function = builder.build();
      // PassThrough as in the template, set on the resource: CDK's Tracing.PASS_THROUGH would also
      // grant X-Ray writes.
      ((CfnFunction) function.getNode().getDefaultChild())
          .setTracingConfig(
              CfnFunction.TracingConfigProperty.builder().mode("PassThrough").build());
      functions.put(f, function);
    }
    createTableAccessRole(permissions);
  }

  /**
   * The role every stage that writes a table (PlanRewrite, RewriteGroup, RecordGroupFailure,
   * CommitSnapshot, CareForTable) assumes again with that table's STS session policy (core's
   * TableSessionPolicy; docs/deploy.md, "Scoped credentials"), named to them by {@code
   * TABLE_ACCESS_ROLE_ARN}: {@link FunctionPermissions#tableAccessStatements}. The trust names the
   * five roles' ARNs, so they need no grant of their own (same account) and no reference to this
   * role, which would be a cycle.
   */
  private void createTableAccessRole(FunctionPermissions permissions) {
    List<IManagedPolicy> managed = new ArrayList<>();
    props.catalogAccessPolicy().ifPresent(managed::add);
    List<CompactionFunction> users =
        List.of(
            CompactionFunction.PLAN_REWRITE,
            CompactionFunction.REWRITE_GROUP,
            CompactionFunction.RECORD_GROUP_FAILURE,
            CompactionFunction.COMMIT_SNAPSHOT,
            CompactionFunction.CARE_FOR_TABLE);
    users.forEach(f -> props.extraPolicy(f).ifPresent(managed::add));
    List<PolicyStatement> statements = permissions.tableAccessStatements();
    Role role =
        Role.Builder.create(this, "TableAccessRole")
            .description(
                "icecompact - assumed by every stage that writes a table, with that table's"
                    + " session policy.")
            .assumedBy(new ArnPrincipal(functions.get(users.get(0)).getRole().getRoleArn()))
            .managedPolicies(managed)
            .inlinePolicies(
                Map.of(
                    "TableAccess", PolicyDocument.Builder.create().statements(statements).build()))
            .build();
    // One statement naming the five roles, as the SAM template writes it (CDK's CompositePrincipal
    // would
    // make one statement per principal).
    ((CfnRole) role.getNode().getDefaultChild())
        .setAssumeRolePolicyDocument(
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
                            users.stream()
                                .map(f -> functions.get(f).getRole().getRoleArn())
                                .toList()),
                        "Action",
                        "sts:AssumeRole"))));
    users.forEach(f -> functions.get(f).addEnvironment("TABLE_ACCESS_ROLE_ARN", role.getRoleArn()));
    tableAccessRole = role;
  }

  /** The warehouse and work prefixes, as the functions' IAM grants bound them (DeploymentScope). */
  private String allowedLocations() {
    return "s3://"
        + props.warehouseBucket().getBucketName()
        + "/"
        + props.warehousePrefix()
        + ",s3://"
        + workBucket.getBucketName()
        + "/"
        + props.workPrefix();
  }

  /**
   * A role like the one SAM makes for a function: basic execution (logs) plus the function's own
   * statements.
   */
  private IRole functionRole(CompactionFunction f, List<PolicyStatement> statements) {
    List<IManagedPolicy> managed = new ArrayList<>();
    managed.add(ManagedPolicy.fromAwsManagedPolicyName("service-role/AWSLambdaBasicExecutionRole"));
    if (FunctionPermissions.usesCatalog(f)) {
      props.catalogAccessPolicy().ifPresent(managed::add);
    }
    props.extraPolicy(f).ifPresent(managed::add);
    return Role.Builder.create(this, f.step() + "FunctionRole")
        .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
        .managedPolicies(managed)
        .inlinePolicies(
            Map.of(
                f.step() + "Function",
                PolicyDocument.Builder.create().statements(statements).build()))
        .build();
  }

  private StateMachine createStateMachine() {
    StateMachineDefinition definition = StateMachineDefinition.bundled();
    Map<String, String> substitutions = new LinkedHashMap<>();
    for (CompactionFunction f : CompactionFunction.compactionSteps()) {
      substitutions.put(f.definitionPlaceholder(), functions.get(f).getFunctionArn());
    }
    if (!substitutions.keySet().equals(definition.placeholders())) {
      throw new IllegalStateException(
          "the definition's placeholders "
              + definition.placeholders()
              + " are not the functions' "
              + substitutions.keySet());
    }
    // A fixed name lets the role name this state machine's own ARN (the DISTRIBUTED Map starts
    // child executions
    // of it) without a circular reference.
    String stateMachineName = name + "-compaction";
    String arnPrefix =
        "arn:" + Aws.PARTITION + ":states:" + Aws.REGION + ":" + Aws.ACCOUNT_ID + ":";
    List<String> functionArns =
        CompactionFunction.compactionSteps().stream()
            .map(f -> functions.get(f).getFunctionArn())
            .toList();
    Role role =
        Role.Builder.create(this, "CompactionStateMachineRole")
            .assumedBy(new ServicePrincipal("states.amazonaws.com"))
            .inlinePolicies(
                Map.of(
                    "CompactionStateMachine",
                    PolicyDocument.Builder.create()
                        .statements(
                            concat(
                                List.of(
                                    statement(
                                        "InvokeTheCompactionFunctions",
                                        "lambda:InvokeFunction",
                                        functionArns),
                                    statement(
                                        "DistributedMapStartChildExecutions",
                                        "states:StartExecution",
                                        List.of(arnPrefix + "stateMachine:" + stateMachineName)),
                                    PolicyStatement.Builder.create()
                                        .sid("DistributedMapManageChildExecutions")
                                        .effect(Effect.ALLOW)
                                        .actions(
                                            List.of(
                                                "states:DescribeExecution", "states:StopExecution"))
                                        .resources(
                                            List.of(
                                                arnPrefix + "execution:" + stateMachineName + "/*"))
                                        .build()),
                                observabilityStatements()))
                        .build()))
            .build();
    StateMachine machine =
        StateMachine.Builder.create(this, "CompactionStateMachine")
            .stateMachineName(stateMachineName)
            .stateMachineType(StateMachineType.STANDARD)
            .definitionBody(DefinitionBody.fromString(definition.text()))
            .definitionSubstitutions(substitutions)
            .role(role)
            .build();
    observe(machine, "compaction");
    return machine;
  }

  /**
   * Logging (StateMachineLogLevel, without execution data: inputs hold catalog properties) to a
   * retained log group under /aws/vendedlogs/, and X-Ray tracing when asked. Set on the resource,
   * with the role's statements written out: the L2's {@code logs}/{@code tracingEnabled} would add
   * a separate IAM policy the SAM template has not.
   */
  private void observe(StateMachine machine, String suffix) {
    String id =
        suffix.equals("compaction")
            ? "CompactionStateMachineLogGroup"
            : "SweepStateMachineLogGroup";
    LogGroup logGroup =
        LogGroup.Builder.create(this, id)
            .logGroupName("/aws/vendedlogs/states/icecompact/" + name + "-" + suffix)
            .retention(props.logRetention())
            .removalPolicy(RemovalPolicy.RETAIN)
            .build();
    CfnStateMachine resource = (CfnStateMachine) machine.getNode().getDefaultChild();
    resource.setLoggingConfiguration(
        CfnStateMachine.LoggingConfigurationProperty.builder()
            .level(props.stateMachineLogLevel().name())
            .includeExecutionData(false)
            .destinations(
                List.of(
                    CfnStateMachine.LogDestinationProperty.builder()
                        .cloudWatchLogsLogGroup(
                            CfnStateMachine.CloudWatchLogsLogGroupProperty.builder()
                                .logGroupArn(logGroup.getLogGroupArn())
                                .build())
                        .build()))
            .build());
    resource.setTracingConfiguration(
        CfnStateMachine.TracingConfigurationProperty.builder()
            .enabled(props.stateMachineTracing())
            .build());
  }

  /** Log delivery (AWS's documented actions, which take no resource) and, when tracing, X-Ray. */
  private List<PolicyStatement> observabilityStatements() {
    List<PolicyStatement> statements = new ArrayList<>();
    statements.add(
        PolicyStatement.Builder.create()
            .sid("LogDelivery")
            .effect(Effect.ALLOW)
            .actions(
                List.of(
                    "logs:CreateLogDelivery",
                    "logs:GetLogDelivery",
                    "logs:UpdateLogDelivery",
                    "logs:DeleteLogDelivery",
                    "logs:ListLogDeliveries",
                    "logs:PutResourcePolicy",
                    "logs:DescribeResourcePolicies",
                    "logs:DescribeLogGroups"))
            .resources(List.of("*"))
            .build());
    if (props.stateMachineTracing()) {
      statements.add(
          PolicyStatement.Builder.create()
              .sid("XRay")
              .effect(Effect.ALLOW)
              .actions(
                  List.of(
                      "xray:PutTraceSegments",
                      "xray:PutTelemetryRecords",
                      "xray:GetSamplingRules",
                      "xray:GetSamplingTargets"))
              .resources(List.of("*"))
              .build());
    }
    return statements;
  }

  /**
   * The sweep: AssessTables, then an INLINE Map starting the compaction state machine per table
   * (startExecution.sync:2). Its role names every resource: the function, the compaction state
   * machine, its executions, and the EventBridge rule that .sync integrations use (AWS's documented
   * policy).
   */
  private StateMachine createSweepStateMachine() {
    StateMachineDefinition definition =
        StateMachineDefinition.bundled(StateMachineDefinition.SWEEP_RESOURCE);
    Map<String, String> substitutions = new LinkedHashMap<>();
    substitutions.put(
        CompactionFunction.ASSESS_TABLES.definitionPlaceholder(),
        functions.get(CompactionFunction.ASSESS_TABLES).getFunctionArn());
    substitutions.put("CompactionStateMachineArn", stateMachine.getStateMachineArn());
    if (!substitutions.keySet().equals(definition.placeholders())) {
      throw new IllegalStateException(
          "the sweep definition's placeholders "
              + definition.placeholders()
              + " are not "
              + substitutions.keySet());
    }
    String region = ":" + Aws.REGION + ":" + Aws.ACCOUNT_ID + ":";
    Role role =
        Role.Builder.create(this, "SweepStateMachineRole")
            .assumedBy(new ServicePrincipal("states.amazonaws.com"))
            .inlinePolicies(
                Map.of(
                    "SweepStateMachine",
                    PolicyDocument.Builder.create()
                        .statements(
                            concat(
                                List.of(
                                    statement(
                                        "InvokeAssessTables",
                                        "lambda:InvokeFunction",
                                        List.of(
                                            functions
                                                .get(CompactionFunction.ASSESS_TABLES)
                                                .getFunctionArn())),
                                    statement(
                                        "StartCompactionExecutions",
                                        "states:StartExecution",
                                        List.of(stateMachine.getStateMachineArn())),
                                    PolicyStatement.Builder.create()
                                        .sid("ManageCompactionExecutions")
                                        .effect(Effect.ALLOW)
                                        .actions(
                                            List.of(
                                                "states:DescribeExecution", "states:StopExecution"))
                                        .resources(
                                            List.of(
                                                "arn:"
                                                    + Aws.PARTITION
                                                    + ":states"
                                                    + region
                                                    + "execution:"
                                                    + name
                                                    + "-compaction:*"))
                                        .build(),
                                    PolicyStatement.Builder.create()
                                        .sid("SyncExecutionEvents")
                                        .effect(Effect.ALLOW)
                                        .actions(
                                            List.of(
                                                "events:PutTargets",
                                                "events:PutRule",
                                                "events:DescribeRule"))
                                        .resources(
                                            List.of(
                                                "arn:"
                                                    + Aws.PARTITION
                                                    + ":events"
                                                    + region
                                                    + "rule/StepFunctionsGetEventsForStepFunctionsExecutionRule"))
                                        .build()),
                                observabilityStatements()))
                        .build()))
            .build();
    StateMachine machine =
        StateMachine.Builder.create(this, "SweepStateMachine")
            .stateMachineName(name + "-sweep")
            .stateMachineType(StateMachineType.STANDARD)
            .definitionBody(DefinitionBody.fromString(definition.text()))
            .definitionSubstitutions(substitutions)
            .role(role)
            .build();
    observe(machine, "sweep");
    return machine;
  }

  /**
   * The catalog properties of every schedule's input: the catalog's, else derived from the
   * warehouse.
   */
  private Map<String, String> scheduleCatalogProperties() {
    String warehouseLocation =
        "s3://" + props.warehouseBucket().getBucketName() + "/" + props.warehousePrefix();
    return props.catalog().catalogProperties(warehouseLocation);
  }

  /**
   * Starts a schedule could not make (StartExecution refused or throttled past the retry policy)
   * land here with the error in the message attributes; SQS-managed encryption, TLS only, 14 days
   * (SQS's maximum).
   */
  private Queue createScheduleDeadLetterQueue() {
    return Queue.Builder.create(this, "ScheduleDeadLetterQueue")
        .encryption(QueueEncryption.SQS_MANAGED)
        .retentionPeriod(Duration.days(14))
        .enforceSsl(true)
        // Retained like the lease table and the log groups: its messages record starts that never
        // happened.
        .removalPolicy(RemovalPolicy.RETAIN)
        .build();
  }

  /**
   * Each schedule's target: 5 attempts within an hour (the next scheduled run is near), then the
   * queue.
   */
  private CfnSchedule.TargetProperty scheduleTarget(String arn, IRole role, String input) {
    return CfnSchedule.TargetProperty.builder()
        .arn(arn)
        .roleArn(role.getRoleArn())
        .retryPolicy(
            CfnSchedule.RetryPolicyProperty.builder()
                .maximumEventAgeInSeconds(3600)
                .maximumRetryAttempts(5)
                .build())
        .deadLetterConfig(
            CfnSchedule.DeadLetterConfigProperty.builder()
                .arn(scheduleDeadLetterQueue.getQueueArn())
                .build())
        .input(input)
        .build();
  }

  private PolicyStatement sendDeadLetters() {
    return statement(
        "DeadLetters", "sqs:SendMessage", List.of(scheduleDeadLetterQueue.getQueueArn()));
  }

  /** The sweep's schedule, with a role of its own that may start the sweep only. */
  private CfnSchedule createSweepSchedule() {
    Role role =
        Role.Builder.create(this, "SweepSchedulerRole")
            .assumedBy(
                new ServicePrincipal("scheduler.amazonaws.com")
                    .withConditions(
                        Map.of("StringEquals", Map.of("aws:SourceAccount", Aws.ACCOUNT_ID))))
            .inlinePolicies(
                Map.of(
                    "StartSweep",
                    PolicyDocument.Builder.create()
                        .statements(
                            List.of(
                                PolicyStatement.Builder.create()
                                    .effect(Effect.ALLOW)
                                    .actions(List.of("states:StartExecution"))
                                    .resources(List.of(sweepStateMachine.getStateMachineArn()))
                                    .build(),
                                sendDeadLetters()))
                        .build()))
            .build();
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("catalog_properties", scheduleCatalogProperties());
    input.put("namespaces", props.sweepNamespaces());
    input.put("max_tables", props.sweepMaxTables());
    input.put("max_concurrent_tables", props.sweepMaxConcurrentTables());
    // left out when not set, as SweepCareSteps does: the sweep's own defaults then apply
    props.sweepCareSteps().ifPresent(steps -> input.put("care_steps", steps));
    // The work prefix; each table's work location is this followed by the table identifier.
    input.put("work_location", workLocation());
    return CfnSchedule.Builder.create(this, "SweepNamespacesSchedule")
        .description("icecompact: sweep " + String.join(",", props.sweepNamespaces()))
        .scheduleExpression(props.sweepSchedule())
        .scheduleExpressionTimezone(props.scheduleTimezone())
        .flexibleTimeWindow(
            CfnSchedule.FlexibleTimeWindowProperty.builder()
                .mode("FLEXIBLE")
                .maximumWindowInMinutes(15)
                .build())
        .target(
            scheduleTarget(
                sweepStateMachine.getStateMachineArn(), role, Stack.of(this).toJsonString(input)))
        .build();
  }

  private void createSchedules() {
    Role role =
        Role.Builder.create(this, "SchedulerRole")
            .assumedBy(
                new ServicePrincipal("scheduler.amazonaws.com")
                    .withConditions(
                        Map.of("StringEquals", Map.of("aws:SourceAccount", Aws.ACCOUNT_ID))))
            .inlinePolicies(
                Map.of(
                    "StartCompaction",
                    PolicyDocument.Builder.create()
                        .statements(
                            List.of(
                                PolicyStatement.Builder.create()
                                    .effect(Effect.ALLOW)
                                    .actions(List.of("states:StartExecution"))
                                    .resources(List.of(stateMachine.getStateMachineArn()))
                                    .build(),
                                sendDeadLetters()))
                        .build()))
            .build();
    Map<String, String> catalogProperties = scheduleCatalogProperties();
    for (ScheduledTable table : props.tables()) {
      String input =
          Stack.of(this).toJsonString(table.executionInput(catalogProperties, workLocation()));
      CfnSchedule schedule =
          CfnSchedule.Builder.create(this, "Compact" + table.table() + "Schedule")
              .description("icecompact: compact " + table.table())
              .scheduleExpression(table.schedule())
              .scheduleExpressionTimezone(props.scheduleTimezone())
              .flexibleTimeWindow(
                  CfnSchedule.FlexibleTimeWindowProperty.builder()
                      .mode("FLEXIBLE")
                      .maximumWindowInMinutes(15)
                      .build())
              .target(scheduleTarget(stateMachine.getStateMachineArn(), role, input))
              .build();
      schedules.put(table.table(), schedule);
      stalenessAlarm(table.table());
    }
  }

  private void createAlarms() {
    MetricOptions fiveMinuteSum =
        MetricOptions.builder().statistic("Sum").period(Duration.minutes(5)).build();
    alarm(
        "ExecutionsFailedAlarm",
        "An icecompact execution failed (bad input, or a step failed after its retries)."
            + " See the execution's JobFailed cause.",
        stateMachine.metricFailed(fiveMinuteSum),
        1);
    alarm(
        "ExecutionsTimedOutAlarm",
        "An icecompact execution timed out.",
        stateMachine.metricTimedOut(fiveMinuteSum),
        1);
    if (scheduleDeadLetterQueue != null) {
      alarm(
          "ScheduleDeadLettersAlarm",
          "A schedule could not start an icecompact execution (see the message in the"
              + " schedule dead-letter queue: its attributes give the error).",
          scheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible(
              MetricOptions.builder().statistic("Maximum").period(Duration.minutes(5)).build()),
          1);
    }
    // A table's failed compaction is caught inside the sweep (the sweep still succeeds;
    // ExecutionsFailedAlarm and
    // the job log report it): this fires only when the sweep execution itself fails.
    alarm(
        "SweepExecutionsFailedAlarm",
        "An icecompact sweep execution failed as a whole (its input was refused or"
            + " assessing the tables failed); a table's failed compaction does not fail the sweep (see"
            + " ExecutionsFailedAlarm). See the execution's events.",
        sweepStateMachine.metricFailed(fiveMinuteSum),
        1);

    // UNKNOWN, PARTIAL and CONTENDED jobs end in a *successful* execution, so ExecutionsFailed
    // never sees them: count the job lines ReleaseLease prints instead of logging every state's
    // data at level ALL. The ids keep their first names for existing stacks.
    MetricFilter filter =
        releaseLeaseLineCount(
            "UnknownOrPartialJobsMetricFilter", UNKNOWN_OR_PARTIAL_PATTERN, "JobsUnknownOrPartial");
    int threshold = props.unknownOrPartialThreshold();
    alarm(
        "UnknownOrPartialJobsAlarm",
        "At least "
            + threshold
            + " icecompact jobs ended UNKNOWN, PARTIAL or CONTENDED within 6 hours (groups failing"
            + " or conflicting repeatedly, or other writers winning every commit race). Query the job"
            + " log (pk = table) or the release-lease logs.",
        filter.metric(MetricOptions.builder().statistic("Sum").period(Duration.hours(6)).build()),
        threshold);

    // A job can commit while its care steps refuse on every run: ReleaseLease's care lines.
    MetricFilter care =
        releaseLeaseLineCount(
            "CareRefusedOrFailedMetricFilter",
            CARE_REFUSED_OR_FAILED_PATTERN,
            "CareRefusedOrFailed");
    alarm(
        "CareRefusedOrFailedAlarm",
        "An icecompact job's care steps (snapshot expiry, orphan removal, delete cleanup,"
            + " manifests) refused or failed within a day: snapshots and orphans pile up while the"
            + " jobs commit. Why: the job log's care field (./icecompact history --lease-table ...)"
            + " or the release-lease log's {\"icecompact\": \"care\"} lines.",
        care.metric(MetricOptions.builder().statistic("Sum").period(Duration.days(1)).build()),
        1);
  }

  /**
   * The body is the SAM template's text; its placeholders are the SAM logical ids, filled in by
   * Fn::Sub.
   */
  private CfnDashboard createDashboard() {
    Map<String, String> variables = new LinkedHashMap<>();
    variables.put("CompactionStateMachine", stateMachine.getStateMachineArn());
    variables.put("SweepStateMachine", sweepStateMachine.getStateMachineArn());
    variables.put(
        "RewriteGroupFunction", functions.get(CompactionFunction.REWRITE_GROUP).getFunctionName());
    variables.put(
        "PlanRewriteFunction", functions.get(CompactionFunction.PLAN_REWRITE).getFunctionName());
    variables.put(
        "CommitSnapshotFunction",
        functions.get(CompactionFunction.COMMIT_SNAPSHOT).getFunctionName());
    if (!variables.keySet().equals(new java.util.LinkedHashSet<>(OperationsDashboard.VARIABLES))) {
      throw new IllegalStateException(
          "the dashboard names " + OperationsDashboard.VARIABLES + ", not " + variables.keySet());
    }
    return CfnDashboard.Builder.create(this, "OperationsDashboard")
        .dashboardName("icecompact-" + name)
        .dashboardBody(Fn.sub(OperationsDashboard.body(), variables))
        .build();
  }

  /**
   * Counts the lines of ReleaseLease's log group that match {@code pattern}, as {@code
   * <name>-<metric>}.
   */
  private MetricFilter releaseLeaseLineCount(String id, String pattern, String metric) {
    return MetricFilter.Builder.create(this, id)
        .logGroup(logGroups.get(CompactionFunction.RELEASE_LEASE))
        .filterPattern(FilterPattern.literal(pattern))
        .metricNamespace("icecompact")
        .metricName(name + "-" + metric)
        .metricValue("1")
        .unit(Unit.COUNT)
        .build();
  }

  private void alarm(String id, String description, IMetric metric, int threshold) {
    Alarm alarm =
        Alarm.Builder.create(this, id)
            .alarmDescription(description)
            .metric(metric)
            .evaluationPeriods(1)
            .threshold(threshold)
            .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
            .treatMissingData(TreatMissingData.NOT_BREACHING)
            .build();
    props.alarmTopic().ifPresent(topic -> alarm.addAlarmAction(new SnsAction(topic)));
    alarms.add(alarm);
  }

  private static List<PolicyStatement> concat(
      List<PolicyStatement> first, List<PolicyStatement> second) {
    List<PolicyStatement> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  /**
   * A scheduled table's staleness: a day counts when one of its jobs ended COMMITTED, PARTIAL or
   * NOTHING_TO_DO (ReleaseLease's EMF line: every job emits each Jobs* metric once, so SampleCount
   * counts the jobs); staleAfterDays days in a row without one - failed, contended or missing runs
   * alike (missing data breaches) - alarm.
   */
  private void stalenessAlarm(String table) {
    List<Object> metrics = new ArrayList<>();
    metrics.add(
        CfnAlarm.MetricDataQueryProperty.builder()
            .id("succeeded")
            .label(table + " jobs that did not fail")
            .expression("finished - failed - unknown - contended")
            .returnData(true)
            .build());
    metrics.add(jobMetric("finished", "JobsCommitted", "SampleCount", table));
    metrics.add(jobMetric("failed", "JobsFailed", "Sum", table));
    metrics.add(jobMetric("unknown", "JobsUnknown", "Sum", table));
    metrics.add(jobMetric("contended", "JobsContended", "Sum", table));
    CfnAlarm.Builder alarm =
        CfnAlarm.Builder.create(this, "Stale" + table + "Alarm")
            .alarmDescription(
                "icecompact: no job of "
                    + table
                    + " finished without FAILED, UNKNOWN or CONTENDED for "
                    + props.staleAfterDays()
                    + " days (or none ran). See the job log (history --table).")
            .metrics(metrics)
            .evaluationPeriods(props.staleAfterDays())
            .datapointsToAlarm(props.staleAfterDays())
            .threshold(1)
            .comparisonOperator("LessThanThreshold")
            .treatMissingData("breaching");
    props.alarmTopic().ifPresent(topic -> alarm.alarmActions(List.of(topic.getTopicArn())));
    stalenessAlarms.put(table, alarm.build());
  }

  private static CfnAlarm.MetricDataQueryProperty jobMetric(
      String id, String metric, String stat, String table) {
    return CfnAlarm.MetricDataQueryProperty.builder()
        .id(id)
        .metricStat(
            CfnAlarm.MetricStatProperty.builder()
                .metric(
                    CfnAlarm.MetricProperty.builder()
                        .namespace("icecompact")
                        .metricName(metric)
                        .dimensions(
                            List.of(
                                CfnAlarm.DimensionProperty.builder()
                                    .name("Table")
                                    .value(table)
                                    .build()))
                        .build())
                .period(86400)
                .stat(stat)
                .build())
        .returnData(false)
        .build();
  }

  private static PolicyStatement statement(String sid, String action, List<String> resources) {
    return PolicyStatement.Builder.create()
        .sid(sid)
        .effect(Effect.ALLOW)
        .actions(List.of(action))
        .resources(resources)
        .build();
  }
}
