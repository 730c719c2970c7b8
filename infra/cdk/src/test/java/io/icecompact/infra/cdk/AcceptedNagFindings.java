package io.icecompact.infra.cdk;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awscdk.Stack;
import software.constructs.IConstruct;

/**
 * The cdk-nag (AwsSolutions) findings accepted for an icecompact stack, each with its reason;
 * docs/deploy.md ("cdk-nag") lists the same. Wildcard findings (IAM5) are accepted only for the
 * resource shapes named here, so a new wildcard elsewhere still fails CdkNagTest.
 */
final class AcceptedNagFindings {
  private static final String ARN = "arn:<AWS::Partition>:";
  private static final String REGION_ACCOUNT = "<AWS::Region>:<AWS::AccountId>:";

  private AcceptedNagFindings() {}

  static void suppress(Stack stack) {
    IcebergCompaction compaction = (IcebergCompaction) stack.getNode().findChild("Compaction");
    NagSuppressions.addStackSuppressions(
        stack,
        List.of(
            suppression(
                "AwsSolutions-IAM4",
                "AWSLambdaBasicExecutionRole only lets a function write its logs (SAM"
                    + " attaches the same policy); the function's own statements are written out, least privilege.",
                exact(
                    "Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")),
            suppression(
                "AwsSolutions-IAM5",
                "Tables are found at run time under the warehouse prefix: the grants"
                    + " cover only their data/ and metadata/ folders (<prefix>*/data/*, <prefix>*/metadata/*) and the default"
                    + " work location of a job without work_location (<prefix>*/_icecompact/*).",
                regex(
                    "^Resource::"
                        + ARN
                        + "s3:::.+/\\*/(data|metadata|"
                        + FunctionPermissions.DEFAULT_WORK_FOLDER
                        + ")/\\*$")),
            suppression(
                "AwsSolutions-IAM5",
                "Job artefacts are keyed by table and job id, known at run time: the grant"
                    + " covers only the work prefix of the work bucket.",
                regex(
                    "^Resource::"
                        + ARN
                        + "s3:::[^/]+/"
                        + IcebergCompactionProps.DEFAULT_WORK_PREFIX
                        + "\\*$")),
            suppression(
                "AwsSolutions-IAM5",
                "Every table of the one Glue database the deployment names (the sweep"
                    + " lists them at run time); never every database.",
                regex(
                    "^Resource::" + ARN + "glue:" + REGION_ACCOUNT + "table/[A-Za-z0-9_-]+/\\*$")),
            suppression(
                "AwsSolutions-IAM5",
                "Executions are named at run time: the grants cover this deployment's"
                    + " compaction state machine's executions only (the DISTRIBUTED Map's children, the sweep's runs).",
                regex(
                    "^Resource::"
                        + ARN
                        + "states:"
                        + REGION_ACCOUNT
                        + "execution:<AWS::StackName>-compaction[:/]\\*$")),
            suppression(
                "AwsSolutions-IAM5",
                "Step Functions' log delivery and X-Ray actions take no resource-level"
                    + " permission (AWS's documented policies for state machine logging and tracing).",
                exact("Resource::*"))));
    // CareForTable's role and the table-access role it assumes: read-only Glue actions on every
    // database and table, the shared-files check
    for (IConstruct role :
        List.of(
            compaction.function(CompactionFunction.CARE_FOR_TABLE).getRole(),
            compaction.tableAccessRole())) {
      NagSuppressions.addResourceSuppressions(
          role,
          List.of(
              suppression(
                  "AwsSolutions-IAM5",
                  "Read only (GetDatabases, GetDatabase, GetTables, GetTable): before"
                      + " snapshot expiry or orphan removal deletes a file, every table of the catalog is loaded to prove no"
                      + " other table shares it (a registered copy, a write.data.path into this table's folders); a table it"
                      + " cannot read makes those steps refuse.",
                  regex(
                      "^Resource::"
                          + ARN
                          + "glue:"
                          + REGION_ACCOUNT
                          + "(database/\\*|table/\\*/\\*)$"))),
          true);
    }
    for (CompactionFunction f : CompactionFunction.values()) {
      resource(
          compaction.function(f),
          "AwsSolutions-L1",
          "java21 (LTS) is the runtime the jars are built, tested"
              + " and cold-start measured on; moving to a newer Java runtime is a deliberate, measured change.");
    }
    resource(
        compaction.workBucket(),
        "AwsSolutions-S1",
        "The work bucket holds only the functions' own job"
            + " artefacts, which expire; every write is in the functions' logs. Server access logs would need a second"
            + " bucket for little more.");
    compaction
        .scheduleDeadLetterQueue()
        .ifPresent(
            queue ->
                resource(
                    queue,
                    "AwsSolutions-SQS3",
                    "This queue is the schedules' dead-letter queue (EventBridge Scheduler's DeadLetterConfig, which cdk-nag"
                        + " does not recognise as one)."));
    for (IConstruct machine : List.of(compaction.stateMachine(), compaction.sweepStateMachine())) {
      resource(
          machine,
          "AwsSolutions-SF1",
          "ERROR by default: ALL logs every state transition, charged per event;"
              + " StateMachineLogLevel / stateMachineLogLevel turns it on.");
      resource(
          machine,
          "AwsSolutions-SF2",
          "Off by default (traces are charged per segment);"
              + " StateMachineTracing / stateMachineTracing turns it on.");
    }
  }

  private static void resource(IConstruct construct, String id, String reason) {
    NagSuppressions.addResourceSuppressions(
        construct, List.of(suppression(id, reason, null)), true);
  }

  private static NagPackSuppression suppression(String id, String reason, Object appliesTo) {
    NagPackSuppression.Builder b = NagPackSuppression.builder().id(id).reason(reason);
    if (appliesTo != null) {
      List<Object> list = new ArrayList<>();
      list.add(appliesTo);
      b.appliesTo(list);
    }
    return b.build();
  }

  private static Object exact(String finding) {
    return finding;
  }

  private static Object regex(String pattern) {
    return RegexAppliesTo.builder().regex("/" + pattern + "/").build();
  }
}
