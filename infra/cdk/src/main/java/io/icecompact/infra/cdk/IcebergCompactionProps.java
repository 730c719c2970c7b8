package io.icecompact.infra.cdk;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import software.amazon.awscdk.services.iam.IManagedPolicy;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.s3.IBucket;
import software.amazon.awscdk.services.sns.ITopic;
import software.amazon.awscdk.services.stepfunctions.LogLevel;

/**
 * What an {@link IcebergCompaction} deploys, immutable; defaults are infra/template.yaml's
 * (docs/deploy.md maps each prop to its SAM parameter). Required: the warehouse bucket, the catalog
 * (a Glue catalog names its database: no default grants every database) and the function code.
 */
public final class IcebergCompactionProps {
  public static final String DEFAULT_WAREHOUSE_PREFIX = "warehouse/";
  public static final String DEFAULT_WORK_PREFIX = "icecompact/jobs/";
  public static final int DEFAULT_WORK_ARTEFACT_RETENTION_DAYS = 14;
  public static final RetentionDays DEFAULT_LOG_RETENTION = RetentionDays.ONE_MONTH;
  public static final int DEFAULT_UNKNOWN_OR_PARTIAL_THRESHOLD = 3;
  public static final String DEFAULT_SCHEDULE_TIMEZONE = "UTC";
  public static final String DEFAULT_SWEEP_SCHEDULE = "rate(1 day)";
  public static final int DEFAULT_SWEEP_MAX_TABLES = 10;
  public static final int DEFAULT_SWEEP_MAX_CONCURRENT_TABLES = 4;

  /**
   * The maxima of max_tables and max_concurrent_tables in state-machine/sweep-input.schema.json.
   */
  public static final int MAX_SWEEP_MAX_TABLES = 100;

  public static final int MAX_SWEEP_MAX_CONCURRENT_TABLES = 40;

  /**
   * The names SweepCareSteps and the sweep input's {@code care_steps} accept
   * (state-machine/sweep-input.schema.json; the construct does not depend on core's CareStep, a
   * test holds the two together).
   */
  public static final List<String> CARE_STEPS =
      List.of("delete-cleanup", "rewrite-manifests", "expire-snapshots", "remove-orphans");

  public static final ApplicationLogLevel DEFAULT_LOG_LEVEL = ApplicationLogLevel.INFO;

  /** Failed states and executions only: ALL logs every transition, charged per event. */
  public static final LogLevel DEFAULT_STATE_MACHINE_LOG_LEVEL = LogLevel.ERROR;

  public static final int DEFAULT_STALE_AFTER_DAYS = 3;

  /**
   * The SAM template's LogLevel values: not WARN or above, since the job line (read by the
   * UNKNOWN/PARTIAL/CONTENDED alarm) and the metric lines carry no level, which Lambda counts as
   * INFO.
   */
  public static final Set<ApplicationLogLevel> LOG_LEVELS =
      Set.of(ApplicationLogLevel.TRACE, ApplicationLogLevel.DEBUG, ApplicationLogLevel.INFO);

  /** The SAM template's WorkPrefix pattern: S3's safe key characters, ending with "/". */
  private static final Pattern WORK_PREFIX = Pattern.compile("^[A-Za-z0-9!_.*'()/-]+/$");

  /**
   * A namespace as SweepNamespaces allows it: no comma, white space, quote or backslash (levels
   * separated by dots).
   */
  private static final Pattern NAMESPACE = Pattern.compile("^[^,\\s\"\\\\]+$");

  private static final Pattern SCHEDULE = Pattern.compile("^(rate|cron|at)\\(.+\\)$");

  /** State machine names allow 80 characters; "-compaction" takes 11. */
  private static final Pattern NAME = Pattern.compile("^[A-Za-z0-9_-]{1,69}$");

  private final IBucket warehouseBucket;
  private final String warehousePrefix;
  private final IcebergCatalog catalog;
  private final IManagedPolicy catalogAccessPolicy;
  private final List<String> warehouseKmsKeyArns;
  private final List<ScheduledTable> tables;
  private final String scheduleTimezone;
  private final List<String> sweepNamespaces;
  private final String sweepSchedule;
  private final int sweepMaxTables;
  private final int sweepMaxConcurrentTables;
  private final List<String> sweepCareSteps;
  private final IBucket workBucket;
  private final String workPrefix;
  private final int workArtefactRetentionDays;
  private final RetentionDays logRetention;
  private final ApplicationLogLevel logLevel;
  private final ITopic alarmTopic;
  private final int unknownOrPartialThreshold;
  private final Map<CompactionFunction, FunctionSize> functionSizes;
  private final Map<CompactionFunction, IManagedPolicy> extraPolicies;
  private final Integer workerReservedConcurrency;
  private final LogLevel stateMachineLogLevel;
  private final boolean stateMachineTracing;
  private final int staleAfterDays;
  private final FunctionCode functionCode;
  private final String name;

  private IcebergCompactionProps(Builder b) {
    this.warehouseBucket = b.warehouseBucket;
    this.warehousePrefix = b.warehousePrefix;
    this.catalog = b.catalog;
    this.catalogAccessPolicy = b.catalogAccessPolicy;
    this.warehouseKmsKeyArns = List.copyOf(b.warehouseKmsKeyArns);
    this.tables = List.copyOf(b.tables);
    this.scheduleTimezone = b.scheduleTimezone;
    this.sweepNamespaces = List.copyOf(b.sweepNamespaces);
    this.sweepSchedule = b.sweepSchedule;
    this.sweepMaxTables = b.sweepMaxTables;
    this.sweepMaxConcurrentTables = b.sweepMaxConcurrentTables;
    this.sweepCareSteps = b.sweepCareSteps == null ? null : List.copyOf(b.sweepCareSteps);
    this.workBucket = b.workBucket;
    this.workPrefix = b.workPrefix;
    this.workArtefactRetentionDays = b.workArtefactRetentionDays;
    this.logRetention = b.logRetention;
    this.logLevel = b.logLevel;
    this.alarmTopic = b.alarmTopic;
    this.unknownOrPartialThreshold = b.unknownOrPartialThreshold;
    EnumMap<CompactionFunction, FunctionSize> sizes = new EnumMap<>(CompactionFunction.class);
    for (CompactionFunction function : CompactionFunction.values()) {
      sizes.put(function, b.functionSizes.getOrDefault(function, function.defaultSize()));
    }
    this.functionSizes = java.util.Collections.unmodifiableMap(sizes);
    this.extraPolicies = java.util.Collections.unmodifiableMap(new EnumMap<>(b.extraPolicies));
    this.workerReservedConcurrency = b.workerReservedConcurrency;
    this.stateMachineLogLevel = b.stateMachineLogLevel;
    this.stateMachineTracing = b.stateMachineTracing;
    this.staleAfterDays = b.staleAfterDays;
    this.functionCode = b.functionCode;
    this.name = b.name;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Bucket of the Iceberg tables (WarehouseBucket). */
  public IBucket warehouseBucket() {
    return warehouseBucket;
  }

  /**
   * Key prefix of the tables, "" or ending with "/"; S3 grants cover {@code <prefix>*}{@code
   * /data/*} and {@code <prefix>*}{@code /metadata/*}.
   */
  public String warehousePrefix() {
    return warehousePrefix;
  }

  public IcebergCatalog catalog() {
    return catalog;
  }

  /** Managed policy for the planner and committer only (CatalogAccessPolicyArn). */
  public Optional<IManagedPolicy> catalogAccessPolicy() {
    return Optional.ofNullable(catalogAccessPolicy);
  }

  /**
   * KMS keys of an SSE-KMS warehouse or work bucket (WarehouseKmsKeyArns): kms:Decrypt for every
   * function that reads table files, kms:GenerateDataKey for every one that writes S3 objects.
   */
  public List<String> warehouseKmsKeyArns() {
    return warehouseKmsKeyArns;
  }

  public List<ScheduledTable> tables() {
    return tables;
  }

  /** Time zone of {@code cron(...)} schedules (ScheduleTimezone). */
  public String scheduleTimezone() {
    return scheduleTimezone;
  }

  /**
   * Namespaces the sweep assesses on {@link #sweepSchedule()} (SweepNamespaces); empty = no sweep
   * schedule (the sweep state machine is deployed anyway and can be started by hand).
   */
  public List<String> sweepNamespaces() {
    return sweepNamespaces;
  }

  /** EventBridge Scheduler expression of the sweep (SweepSchedule). */
  public String sweepSchedule() {
    return sweepSchedule;
  }

  /** Tables the sweep compacts at most per run, the highest ranked first (SweepMaxTables). */
  public int sweepMaxTables() {
    return sweepMaxTables;
  }

  /** Tables the sweep compacts at once (SweepMaxConcurrentTables). */
  public int sweepMaxConcurrentTables() {
    return sweepMaxConcurrentTables;
  }

  /**
   * Care steps the sweep runs for a table that does not set {@code icecompact.steps}
   * (SweepCareSteps), passed as the schedule input's {@code care_steps}; empty Optional = not
   * passed (the sweep's defaults, which delete nothing); an empty list = no care step.
   */
  public Optional<List<String>> sweepCareSteps() {
    return Optional.ofNullable(sweepCareSteps);
  }

  /**
   * An existing bucket for job artefacts (ExistingWorkBucket); empty = the construct creates one.
   */
  public Optional<IBucket> workBucket() {
    return Optional.ofNullable(workBucket);
  }

  public String workPrefix() {
    return workPrefix;
  }

  /** Expiry of job artefacts in the created work bucket (WorkArtefactRetentionDays). */
  public int workArtefactRetentionDays() {
    return workArtefactRetentionDays;
  }

  public RetentionDays logRetention() {
    return logRetention;
  }

  /** Application log level of every function (LogLevel); the functions log JSON. */
  public ApplicationLogLevel logLevel() {
    return logLevel;
  }

  public Optional<ITopic> alarmTopic() {
    return Optional.ofNullable(alarmTopic);
  }

  public int unknownOrPartialThreshold() {
    return unknownOrPartialThreshold;
  }

  /** The size of a function: the one given, else the SAM template's. */
  public FunctionSize functionSize(CompactionFunction function) {
    return functionSizes.get(function);
  }

  /**
   * A managed policy added to one function's role (the SAM template's {@code
   * <Step>ExtraPolicyArn}).
   */
  public Optional<IManagedPolicy> extraPolicy(CompactionFunction function) {
    return Optional.ofNullable(extraPolicies.get(function));
  }

  /**
   * The worker's reserved concurrency (WorkerReservedConcurrency); empty = none. It caps the
   * workers of all executions together, so it bounds what the executions' {@code max_concurrency}
   * can use.
   */
  public Optional<Integer> workerReservedConcurrency() {
    return Optional.ofNullable(workerReservedConcurrency);
  }

  /**
   * Step Functions log level of both state machines (StateMachineLogLevel), without execution data.
   */
  public LogLevel stateMachineLogLevel() {
    return stateMachineLogLevel;
  }

  /** X-Ray tracing of both state machines (StateMachineTracing). */
  public boolean stateMachineTracing() {
    return stateMachineTracing;
  }

  /**
   * Days without a job that ended COMMITTED, PARTIAL or NOTHING_TO_DO before a scheduled table's
   * staleness alarm fires (StaleAfterDays).
   */
  public int staleAfterDays() {
    return staleAfterDays;
  }

  public FunctionCode functionCode() {
    return functionCode;
  }

  /** The deployment's name in resource names; empty = the stack's name, as in the SAM template. */
  public Optional<String> name() {
    return Optional.ofNullable(name);
  }

  public static final class Builder {
    private IBucket warehouseBucket;
    private String warehousePrefix = DEFAULT_WAREHOUSE_PREFIX;
    private IcebergCatalog catalog;
    private IManagedPolicy catalogAccessPolicy;
    private final List<String> warehouseKmsKeyArns = new ArrayList<>();
    private final List<ScheduledTable> tables = new ArrayList<>();
    private String scheduleTimezone = DEFAULT_SCHEDULE_TIMEZONE;
    private final List<String> sweepNamespaces = new ArrayList<>();
    private String sweepSchedule = DEFAULT_SWEEP_SCHEDULE;
    private int sweepMaxTables = DEFAULT_SWEEP_MAX_TABLES;
    private int sweepMaxConcurrentTables = DEFAULT_SWEEP_MAX_CONCURRENT_TABLES;
    private List<String> sweepCareSteps;
    private IBucket workBucket;
    private String workPrefix = DEFAULT_WORK_PREFIX;
    private int workArtefactRetentionDays = DEFAULT_WORK_ARTEFACT_RETENTION_DAYS;
    private RetentionDays logRetention = DEFAULT_LOG_RETENTION;
    private ApplicationLogLevel logLevel = DEFAULT_LOG_LEVEL;
    private ITopic alarmTopic;
    private int unknownOrPartialThreshold = DEFAULT_UNKNOWN_OR_PARTIAL_THRESHOLD;
    private final Map<CompactionFunction, FunctionSize> functionSizes =
        new EnumMap<>(CompactionFunction.class);
    private final Map<CompactionFunction, IManagedPolicy> extraPolicies =
        new EnumMap<>(CompactionFunction.class);
    private Integer workerReservedConcurrency;
    private LogLevel stateMachineLogLevel = DEFAULT_STATE_MACHINE_LOG_LEVEL;
    private boolean stateMachineTracing;
    private int staleAfterDays = DEFAULT_STALE_AFTER_DAYS;
    private FunctionCode functionCode;
    private String name;

    private Builder() {}

    public Builder warehouseBucket(IBucket bucket) {
      this.warehouseBucket = bucket;
      return this;
    }

    public Builder warehousePrefix(String prefix) {
      this.warehousePrefix = Objects.requireNonNull(prefix, "warehousePrefix");
      return this;
    }

    public Builder catalog(IcebergCatalog icebergCatalog) {
      this.catalog = Objects.requireNonNull(icebergCatalog, "catalog");
      return this;
    }

    public Builder catalogAccessPolicy(IManagedPolicy policy) {
      this.catalogAccessPolicy = policy;
      return this;
    }

    /** The KMS keys of an SSE-KMS warehouse or work bucket, as ARNs. */
    public Builder warehouseKmsKeyArns(List<String> keyArns) {
      keyArns.forEach(
          arn -> {
            if (!arn.startsWith("arn:") || !arn.contains(":kms:")) {
              throw new IllegalArgumentException(
                  "warehouseKmsKeyArns: '" + arn + "' is not a KMS key ARN (arn:aws:kms:...)");
            }
          });
      this.warehouseKmsKeyArns.addAll(keyArns);
      return this;
    }

    public Builder tables(List<ScheduledTable> scheduledTables) {
      scheduledTables.forEach(this::table);
      return this;
    }

    public Builder table(ScheduledTable table) {
      this.tables.add(Objects.requireNonNull(table, "table"));
      return this;
    }

    public Builder scheduleTimezone(String timezone) {
      this.scheduleTimezone = Objects.requireNonNull(timezone, "scheduleTimezone");
      return this;
    }

    /**
     * Namespaces the sweep assesses, e.g. {@code analytics}, {@code sales.raw}; none = no sweep
     * schedule.
     */
    public Builder sweepNamespaces(List<String> namespaces) {
      namespaces.forEach(
          n -> this.sweepNamespaces.add(Objects.requireNonNull(n, "sweep namespace")));
      return this;
    }

    public Builder sweepSchedule(String schedule) {
      this.sweepSchedule = Objects.requireNonNull(schedule, "sweepSchedule");
      return this;
    }

    public Builder sweepMaxTables(int tables) {
      this.sweepMaxTables = tables;
      return this;
    }

    public Builder sweepMaxConcurrentTables(int tables) {
      this.sweepMaxConcurrentTables = tables;
      return this;
    }

    /**
     * Care steps for every swept table that does not set {@code icecompact.steps}, from {@link
     * #CARE_STEPS}, e.g. {@code List.of("rewrite-manifests", "expire-snapshots",
     * "remove-orphans")}; an empty list = none. Unset: the sweep's defaults (rewrite-manifests,
     * plus delete-cleanup on a v2 table with delete files).
     */
    public Builder sweepCareSteps(List<String> steps) {
      this.sweepCareSteps = new ArrayList<>(Objects.requireNonNull(steps, "sweepCareSteps"));
      return this;
    }

    public Builder workBucket(IBucket existingBucket) {
      this.workBucket = existingBucket;
      return this;
    }

    public Builder workPrefix(String prefix) {
      this.workPrefix = Objects.requireNonNull(prefix, "workPrefix");
      return this;
    }

    public Builder workArtefactRetentionDays(int days) {
      this.workArtefactRetentionDays = days;
      return this;
    }

    public Builder logRetention(RetentionDays retention) {
      this.logRetention = Objects.requireNonNull(retention, "logRetention");
      return this;
    }

    public Builder logLevel(ApplicationLogLevel level) {
      this.logLevel = Objects.requireNonNull(level, "logLevel");
      return this;
    }

    public Builder alarmTopic(ITopic topic) {
      this.alarmTopic = topic;
      return this;
    }

    public Builder unknownOrPartialThreshold(int jobs) {
      this.unknownOrPartialThreshold = jobs;
      return this;
    }

    public Builder functionSize(CompactionFunction function, FunctionSize size) {
      this.functionSizes.put(
          Objects.requireNonNull(function, "function"), Objects.requireNonNull(size, "size"));
      return this;
    }

    /**
     * Adds a managed policy to one function's role, e.g. KMS, Lake Formation or S3 Tables grants.
     */
    public Builder extraPolicy(CompactionFunction function, IManagedPolicy policy) {
      this.extraPolicies.put(
          Objects.requireNonNull(function, "function"), Objects.requireNonNull(policy, "policy"));
      return this;
    }

    /** Reserves (and caps) the worker's concurrency; unset = no reservation. */
    public Builder workerReservedConcurrency(Integer executions) {
      this.workerReservedConcurrency = executions;
      return this;
    }

    public Builder stateMachineLogLevel(LogLevel level) {
      this.stateMachineLogLevel = Objects.requireNonNull(level, "stateMachineLogLevel");
      return this;
    }

    public Builder stateMachineTracing(boolean enabled) {
      this.stateMachineTracing = enabled;
      return this;
    }

    public Builder staleAfterDays(int days) {
      this.staleAfterDays = days;
      return this;
    }

    public Builder functionCode(FunctionCode code) {
      this.functionCode = code;
      return this;
    }

    public Builder name(String deploymentName) {
      this.name = deploymentName;
      return this;
    }

    public IcebergCompactionProps build() {
      PropsCheck.that(
          warehouseBucket != null,
          "'warehouseBucket' is not set: the bucket of the Iceberg tables");
      PropsCheck.that(
          catalog != null,
          "'catalog' is not set: e.g. IcebergCatalog.glue(\"analytics\") (the Glue"
              + " database the functions may use; \"*\" = every database of the account), IcebergCatalog.dynamoDb(...),"
              + " rest(...) or jdbc(...)");
      PropsCheck.that(
          functionCode != null,
          "'functionCode' is not set: e.g. FunctionCode.fromBuiltJars(<repository root>)");
      PropsCheck.that(
          warehousePrefix.isEmpty()
              || (warehousePrefix.endsWith("/") && !warehousePrefix.startsWith("/")),
          "'warehousePrefix' is set to '"
              + warehousePrefix
              + "' but must be empty or end with '/' (and not start with it)");
      PropsCheck.that(
          WORK_PREFIX.matcher(workPrefix).matches(),
          "'workPrefix' is set to '" + workPrefix + "' but must match " + WORK_PREFIX.pattern());
      PropsCheck.that(
          workArtefactRetentionDays >= 1,
          "'workArtefactRetentionDays' is set to "
              + workArtefactRetentionDays
              + " but must be >= 1");
      PropsCheck.that(
          unknownOrPartialThreshold >= 1,
          "'unknownOrPartialThreshold' is set to "
              + unknownOrPartialThreshold
              + " but must be >= 1");
      PropsCheck.that(!scheduleTimezone.isBlank(), "'scheduleTimezone' is blank");
      PropsCheck.that(
          LOG_LEVELS.contains(logLevel),
          "'logLevel' is set to "
              + logLevel
              + " but must be TRACE, DEBUG or INFO: the job and metric lines have no level and count as INFO");
      FunctionSize worker = functionSizes.get(CompactionFunction.REWRITE_GROUP);
      PropsCheck.that(
          worker == null || worker.memoryMb() >= CompactionFunction.WORKER_MIN_MEMORY_MB,
          "the worker's memory is set to "
              + (worker == null ? 0 : worker.memoryMb())
              + " MB but must be >= "
              + CompactionFunction.WORKER_MIN_MEMORY_MB
              + " MB");
      // CloudWatch evaluates an alarm over at most 7 days (periods of a day here).
      PropsCheck.range("staleAfterDays", staleAfterDays, 1, 7);
      if (workerReservedConcurrency != null) {
        PropsCheck.range("workerReservedConcurrency", workerReservedConcurrency, 1, 99999);
      }
      PropsCheck.that(
          name == null || NAME.matcher(name).matches(),
          "'name' is set to '" + name + "' but must match " + NAME.pattern());
      for (String namespace : sweepNamespaces) {
        PropsCheck.that(
            NAMESPACE.matcher(namespace).matches(),
            "sweep namespace '"
                + namespace
                + "' must be non-empty without commas, spaces, quotes or backslashes (levels separated by dots)");
      }
      PropsCheck.that(
          new HashSet<>(sweepNamespaces).size() == sweepNamespaces.size(),
          "'sweepNamespaces' " + sweepNamespaces + " names a namespace twice");
      PropsCheck.that(
          SCHEDULE.matcher(sweepSchedule).matches(),
          "'sweepSchedule' is set to '"
              + sweepSchedule
              + "' but must be an EventBridge Scheduler expression: rate(...), cron(...) or at(...)");
      // The sweep input schema's bounds: a value outside them would deploy, then fail every sweep's
      // validation.
      PropsCheck.range("sweepMaxTables", sweepMaxTables, 1, MAX_SWEEP_MAX_TABLES);
      PropsCheck.range(
          "sweepMaxConcurrentTables", sweepMaxConcurrentTables, 1, MAX_SWEEP_MAX_CONCURRENT_TABLES);
      if (sweepCareSteps != null) {
        for (String step : sweepCareSteps) {
          PropsCheck.that(
              CARE_STEPS.contains(step),
              "sweep care step '" + step + "' is not one of " + CARE_STEPS);
        }
        PropsCheck.that(
            new HashSet<>(sweepCareSteps).size() == sweepCareSteps.size(),
            "'sweepCareSteps' " + sweepCareSteps + " names a step twice");
      }
      Set<String> seen = new HashSet<>();
      for (ScheduledTable table : tables) {
        PropsCheck.that(
            seen.add(table.table()),
            "table "
                + table.table()
                + " is scheduled twice; one schedule per table (its lease would skip one of two overlapping runs)");
      }
      return new IcebergCompactionProps(this);
    }
  }
}
