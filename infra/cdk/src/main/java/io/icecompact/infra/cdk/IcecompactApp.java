package io.icecompact.infra.cdk;

import software.amazon.awscdk.App;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;

/**
 * The sample CDK app (cdk.json): one stack holding one {@link IcebergCompaction}, set from context
 * values named like the SAM template's parameters, e.g. {@code npx aws-cdk@2 deploy -c
 * warehouseBucket=my-warehouse -c table=analytics.orders -c schedule="rate(1 day)"}. See
 * docs/deploy.md, "Deploy with the CDK".
 */
public final class IcecompactApp {
  private IcecompactApp() {}

  public static void main(String[] args) {
    App app = new App();
    stack(app);
    app.synth();
  }

  /** The app's stack, with the SAM template's outputs. */
  static Stack stack(App app) {
    AppContext context = new AppContext(app);
    context.rejectUnknownNames();
    Stack stack =
        new Stack(
            app,
            "Icecompact",
            StackProps.builder()
                .stackName(context.stackName())
                .description(
                    "icecompact - serverless compaction for Apache Iceberg tables (infra/cdk, IcebergCompaction)")
                .build());
    IcebergCompaction compaction =
        new IcebergCompaction(stack, "Compaction", new AppContext(stack).props());

    output(
        stack,
        "StateMachineArn",
        compaction.stateMachine().getStateMachineArn(),
        "The compaction state machine; start an execution with the input of"
            + " state-machine/execution-input.schema.json.");
    output(
        stack,
        "SweepStateMachineArn",
        compaction.sweepStateMachine().getStateMachineArn(),
        "The sweep state machine; start an execution with the input of state-machine/sweep-input.schema.json:"
            + " {\"catalog_properties\", \"namespaces\", \"max_tables\", \"max_concurrent_tables\", \"care_steps\","
            + " \"work_location\"}. Set work_location to s3://<WorkBucketName>/<WorkLocationPrefix> (as the sweep"
            + " schedule does), or leave it out: the jobs then work under each table's <location>/_icecompact, inside"
            + " the warehouse prefix.");
    output(
        stack,
        "LeaseTableName",
        compaction.leaseTable().getTableName(),
        "Lease and job-log table (pk = table identifier, sk = lease | job#...).");
    output(
        stack,
        "WorkBucketName",
        compaction.workBucket().getBucketName(),
        "Bucket of the work location.");
    output(
        stack,
        "WorkLocationPrefix",
        compaction.workPrefix(),
        "Set an execution's work_location to s3://<WorkBucketName>/<this> (the job appends the table identifier,"
            + " lower-cased, then its job id). Without work_location a job works under <table location>/_icecompact.");
    return stack;
  }

  private static void output(Stack stack, String id, String value, String description) {
    CfnOutput.Builder.create(stack, id).value(value).description(description).build();
  }
}
