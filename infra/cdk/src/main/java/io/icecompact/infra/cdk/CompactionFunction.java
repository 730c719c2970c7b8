package io.icecompact.infra.cdk;

import java.util.List;
import java.util.stream.Stream;

/**
 * The Lambda functions of infra/template.yaml: the seven of the compaction state machine and the
 * sweep's AssessTables, with what the template gives each: the module whose jar holds it, its
 * handler, its default size and whether it reads the lease table.
 */
public enum CompactionFunction {
  ACQUIRE_LEASE(
      "AcquireLease",
      "lease-fn",
      "io.icecompact.lease.lambda.AcquireLeaseHandler",
      "validates the execution input and takes the table's lease.",
      FunctionSize.of(512, 60),
      true,
      1),
  PLAN_REWRITE(
      "PlanRewrite",
      "planner-fn",
      "io.icecompact.planner.lambda.PlanRewriteHandler",
      "pins the snapshot, plans file groups, stores the plan.",
      FunctionSize.of(2048, 900),
      false,
      1),
  REWRITE_GROUP(
      "RewriteGroup",
      "worker-fn",
      "io.icecompact.worker.lambda.RewriteGroupHandler",
      "rewrites one file group with every delete applied.",
      new FunctionSize(8192, 900, 10240),
      true,
      4),
  RECORD_GROUP_FAILURE(
      "RecordGroupFailure",
      "worker-fn",
      "io.icecompact.worker.lambda.RecordGroupFailureHandler",
      "stores why a file group failed.",
      FunctionSize.of(512, 60),
      false,
      1),
  COMMIT_SNAPSHOT(
      "CommitSnapshot",
      "committer-fn",
      "io.icecompact.committer.lambda.CommitSnapshotHandler",
      "checks the job's invariants and the lease, commits one snapshot.",
      FunctionSize.of(2048, 900),
      true,
      1),
  /**
   * After the commit: the care steps the input lists, committing like the committer, hence its size
   * and JIT level.
   */
  CARE_FOR_TABLE(
      "CareForTable",
      "care-fn",
      "io.icecompact.care.lambda.CareForTableHandler",
      "runs the table's care steps after the commit while holding the lease.",
      FunctionSize.of(2048, 900),
      true,
      1),
  RELEASE_LEASE(
      "ReleaseLease",
      "lease-fn",
      "io.icecompact.lease.lambda.ReleaseLeaseHandler",
      "writes the job log record and releases the lease.",
      FunctionSize.of(512, 60),
      true,
      1),
  /**
   * The sweep's first step, in the planner's jar with the planner's size and JIT level; it writes
   * nothing.
   */
  ASSESS_TABLES(
      "AssessTables",
      "planner-fn",
      "io.icecompact.planner.lambda.AssessTablesHandler",
      "lists the tables of namespaces and assesses each from its metadata.",
      FunctionSize.of(2048, 900),
      false,
      1);

  /**
   * The worker's least memory, as the SAM template's WorkerMemorySize allows: memory buys the CPU
   * it rewrites with.
   */
  public static final int WORKER_MIN_MEMORY_MB = 4096;

  /**
   * Lambda's java21 runtime stops tiered compilation at level 1 (C1) by default; each function
   * states its level as the template does: 4 (C2) for the worker's minutes-long rewrite loop, 1 for
   * the others (docs/deploy.md, "JIT compilers").
   */
  String javaToolOptions() {
    return "-XX:+TieredCompilation -XX:TieredStopAtLevel=" + tieredStopAtLevel;
  }

  private final String step;
  private final String module;
  private final String handlerClass;
  private final String purpose;
  private final FunctionSize defaultSize;
  private final boolean usesLeaseTable;
  private final int tieredStopAtLevel;

  CompactionFunction(
      String step,
      String module,
      String handlerClass,
      String purpose,
      FunctionSize defaultSize,
      boolean usesLeaseTable,
      int tieredStopAtLevel) {
    this.step = step;
    this.module = module;
    this.handlerClass = handlerClass;
    this.purpose = purpose;
    this.defaultSize = defaultSize;
    this.usesLeaseTable = usesLeaseTable;
    this.tieredStopAtLevel = tieredStopAtLevel;
  }

  /**
   * The seven functions the compaction state machine invokes (state-machine/compaction.asl.json).
   */
  public static List<CompactionFunction> compactionSteps() {
    return Stream.of(values()).filter(CompactionFunction::isCompactionStep).toList();
  }

  /**
   * Whether the compaction state machine invokes it (AssessTables is the sweep state machine's).
   */
  public boolean isCompactionStep() {
    return this != ASSESS_TABLES;
  }

  /** The state's name in the definition, e.g. {@code AcquireLease}. */
  public String step() {
    return step;
  }

  /** The Maven module whose {@code -lambda.jar} holds the handler, e.g. {@code lease-fn}. */
  public String module() {
    return module;
  }

  public String handler() {
    return handlerClass + "::handleRequest";
  }

  public String description() {
    return "icecompact " + step + " - " + purpose;
  }

  public FunctionSize defaultSize() {
    return defaultSize;
  }

  /** Whether it gets {@code LEASE_TABLE} and permissions on the lease table. */
  public boolean usesLeaseTable() {
    return usesLeaseTable;
  }

  /**
   * The placeholder the definition names this function's ARN with, e.g. {@code
   * AcquireLeaseFunctionArn}.
   */
  public String definitionPlaceholder() {
    return step + "FunctionArn";
  }

  /** The last part of its log group's name, e.g. {@code acquire-lease}. */
  public String logGroupSuffix() {
    return step.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }
}
