package io.icecompact.statemachine.coldstart;

import static io.icecompact.statemachine.StatePayloads.each;
import static io.icecompact.statemachine.StatePayloads.select;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.statemachine.ClassPathJars;
import io.icecompact.statemachine.LocalFunctionEnvironment;
import io.icecompact.statemachine.StatePayloads;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.LocalS3;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Cold and warm starts of each function, from its deployable jar, on this machine: for each of the
 * seven functions of the compaction state machine a fresh {@link ExecutionEnvironment} (Lambda's
 * runtime interface client in a new JVM) runs init, then a first and a second real invocation,
 * against local S3 (s3proxy) and DynamoDB (dynalite, the lease table), with Iceberg's JDBC catalog
 * on a SQLite file (its driver added to the {@code lib} of the planner, the committer and
 * CareForTable, as docs/deploy.md says for JDBC catalogs). The functions run the way the state
 * machine chains them, on two small fragmented tables, A and B (4 day partitions of 5 files,
 * position and equality deletes): AcquireLease, PlanRewrite, CommitSnapshot, CareForTable (every
 * care step) and ReleaseLease handle job A then job B; RewriteGroup rewrites groups 0 and 1 of job
 * A first (then the rest, not reported); RecordGroupFailure records two failures.
 *
 * <p>A benchmark, not a test: it prints figures and checks only that every invocation succeeded and
 * that the functions' stdout is one JSON object per line. Run it with (from the repository root;
 * builds the jars first):
 *
 * <pre>mvn -B -o verify -pl state-machine -am -DskipTests -Pcold-start</pre>
 *
 * The table is printed and written to {@code state-machine/target/cold-start.md}; the functions'
 * logs are kept under a temporary folder it names.
 */
public final class ColdStartBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final FragmentedTable.Shape SHAPE =
      new FragmentedTable.Shape(4, 5, 300, 2, 2, 10, true);
  private static final String LEASES = "icecompact-leases";

  private final Path root;
  private final Path workDir;
  private final LocalS3 s3;
  private final LocalDynamoDb dynamo;
  private final String bucket;

  /** Functions that call the catalog, and so get the JDBC driver. */
  private static final List<String> CATALOG_FUNCTIONS =
      List.of("PlanRewrite", "CommitSnapshot", "CareForTable");

  /**
   * The care steps each job asks for: all of them (on these young tables they find little to
   * remove).
   */
  private static final List<String> CARE_STEPS =
      List.of("delete-cleanup", "rewrite-manifests", "expire-snapshots", "remove-orphans");

  /**
   * Each function's tiered compilation level, as infra/template.yaml sets it in JAVA_TOOL_OPTIONS;
   * the system property {@code cold-start.tiered-stop-at-level} puts every function on one level
   * instead, for comparison.
   */
  private static final Map<String, Integer> TIERED_STOP_AT_LEVEL =
      Map.of(
          "AcquireLease",
          1,
          "PlanRewrite",
          1,
          "RewriteGroup",
          4,
          "CommitSnapshot",
          1,
          "CareForTable",
          1,
          "ReleaseLease",
          1,
          "RecordGroupFailure",
          1);

  private ColdStartBenchmark(Path root, Path workDir, LocalS3 s3, LocalDynamoDb dynamo) {
    this.root = root;
    this.workDir = workDir;
    this.s3 = s3;
    this.dynamo = dynamo;
    this.bucket = s3.createBucket("warehouse");
  }

  /** {@code args[0]}: the repository root; {@code args[1]}: how many rounds (default 3). */
  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : "..").toAbsolutePath().normalize();
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path workDir = Files.createTempDirectory("icecompact-cold-start");
    Map<String, List<ExecutionEnvironment.Measured>> byFunction = new LinkedHashMap<>();
    try (LocalS3 s3 = new LocalS3().start();
        LocalDynamoDb dynamo = new LocalDynamoDb().start()) {
      LeaseTableSchema.create(dynamo.client(), LEASES);
      ColdStartBenchmark benchmark = new ColdStartBenchmark(root, workDir, s3, dynamo);
      for (int round = 1; round <= rounds; round++) {
        for (ExecutionEnvironment.Measured measured : benchmark.round(round)) {
          byFunction.computeIfAbsent(measured.function(), f -> new ArrayList<>()).add(measured);
        }
      }
    }
    String table = ColdStartTable.markdown(byFunction, rounds);
    System.out.println();
    System.out.println(table);
    Path report = root.resolve("state-machine/target/cold-start.md");
    Files.writeString(report, table, StandardCharsets.UTF_8);
    System.out.println("Written to " + report + "; the functions' logs are under " + workDir);
  }

  /** One job on each of two fresh tables, every function in a fresh environment. */
  private List<ExecutionEnvironment.Measured> round(int round)
      throws IOException, InterruptedException {
    Map<String, String> catalog = catalogProperties(round);
    String tableA = "db.orders_" + round + "a";
    String tableB = "db.orders_" + round + "b";
    try (TableAccess access = new TableAccess(catalog)) {
      FragmentedTable.create(access.catalog(), TableIdentifier.parse(tableA), SHAPE);
      FragmentedTable.create(access.catalog(), TableIdentifier.parse(tableB), SHAPE);
    }
    Path roundDir = Files.createDirectories(workDir.resolve("round-" + round));
    List<ExecutionEnvironment.Measured> measured = new ArrayList<>();

    ExecutionEnvironment.Measured acquire =
        run(
            roundDir,
            "AcquireLease",
            "lease-fn",
            "io.icecompact.lease.lambda.AcquireLeaseHandler",
            List.of(acquireInput(tableA, catalog), acquireInput(tableB, catalog)));
    measured.add(acquire);
    List<ObjectNode> states = answers(acquire);

    ExecutionEnvironment.Measured plan =
        run(
            roundDir,
            "PlanRewrite",
            "planner-fn",
            "io.icecompact.planner.lambda.PlanRewriteHandler",
            each(states, state -> object("job", state.get("job"))));
    measured.add(plan);
    List<ObjectNode> plans = answers(plan);
    for (int i = 0; i < states.size(); i++) {
      states.get(i).set("plan", plans.get(i));
    }

    List<JsonNode> groups = new ArrayList<>();
    states.forEach(state -> groups.addAll(StatePayloads.mapItems(state)));
    measured.add(
        run(
            roundDir,
            "RewriteGroup",
            "worker-fn",
            "io.icecompact.worker.lambda.RewriteGroupHandler",
            each(groups, StatePayloads::rewriteGroup)));

    ExecutionEnvironment.Measured commit =
        run(
            roundDir,
            "CommitSnapshot",
            "committer-fn",
            "io.icecompact.committer.lambda.CommitSnapshotHandler",
            each(states, state -> select(state, "job", "plan", "lease")));
    measured.add(commit);
    List<ObjectNode> results = answers(commit);
    for (int i = 0; i < states.size(); i++) {
      states.get(i).set("result", results.get(i));
    }

    // Both jobs committed, so the state machine's CareRequested? choice goes to CareForTable.
    ExecutionEnvironment.Measured care =
        run(
            roundDir,
            "CareForTable",
            "care-fn",
            "io.icecompact.care.lambda.CareForTableHandler",
            each(states, ColdStartBenchmark::careRequest));
    measured.add(care);
    List<ObjectNode> cared = answers(care);
    for (int i = 0; i < states.size(); i++) {
      ((ObjectNode) states.get(i).get("result")).set("care", cared.get(i));
    }

    measured.add(
        run(
            roundDir,
            "ReleaseLease",
            "lease-fn",
            "io.icecompact.lease.lambda.ReleaseLeaseHandler",
            each(states, state -> select(state, "job", "lease", "settings", "result"))));

    ObjectNode error =
        JSON.createObjectNode()
            .put("Error", "io.icecompact.core.error.TransientException")
            .put(
                "Cause",
                "{\"errorMessage\":\"benchmark\",\"errorType\":\"io.icecompact.core.error.TransientException\"}");
    measured.add(
        run(
            roundDir,
            "RecordGroupFailure",
            "worker-fn",
            "io.icecompact.worker.lambda.RecordGroupFailureHandler",
            each(
                groups.subList(0, 2),
                group -> StatePayloads.rewriteGroup(group).set("error", error))));
    return measured;
  }

  private ExecutionEnvironment.Measured run(
      Path roundDir, String function, String module, String handler, List<JsonNode> payloads)
      throws IOException, InterruptedException {
    List<byte[]> bytes = new ArrayList<>();
    for (JsonNode payload : payloads) {
      bytes.add(JSON.writeValueAsBytes(payload));
    }
    List<Path> jars = new ArrayList<>();
    jars.add(
        root.resolve(module).resolve("target").resolve("icecompact-" + module + "-lambda.jar"));
    if (CATALOG_FUNCTIONS.contains(function)) {
      jars.add(ClassPathJars.find("sqlite-jdbc"));
    }
    ExecutionEnvironment.Measured measured =
        ExecutionEnvironment.run(
            function, jars, handler + "::handleRequest", bytes, environment(function), roundDir);
    StdoutCheck.requireJsonLines(measured.stdout());
    System.out.printf(
        "%-20s init %5d ms, invocations %s ms%n",
        function,
        measured.initMillis(),
        measured.invocations().stream().map(RuntimeApiStub.Invocation::millis).toList());
    return measured;
  }

  /**
   * A function's environment: the template's logging and JIT settings, local endpoints, the local
   * keys.
   */
  private Map<String, String> environment(String function) {
    Map<String, String> env =
        LocalFunctionEnvironment.of(dynamo.endpoint().toString(), LEASES, "INFO");
    env.put(
        "JAVA_TOOL_OPTIONS",
        "-XX:+TieredCompilation -XX:TieredStopAtLevel=" + tieredStopAtLevel(function));
    env.put("AWS_LAMBDA_LOG_FORMAT", "JSON");
    return env;
  }

  static int tieredStopAtLevel(String function) {
    String everyFunction = System.getProperty("cold-start.tiered-stop-at-level", "");
    return everyFunction.isBlank()
        ? TIERED_STOP_AT_LEVEL.get(function)
        : Integer.parseInt(everyFunction);
  }

  /** Iceberg's JDBC catalog on a SQLite file of this round, over a warehouse on local S3. */
  private Map<String, String> catalogProperties(int round) {
    Map<String, String> properties = new TreeMap<>(s3.icebergProperties());
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + workDir.resolve("catalog-" + round + ".db"));
    properties.put("jdbc.schema-version", "V1");
    properties.put("warehouse", "s3://" + bucket + "/warehouse");
    properties.put("io-impl", S3FileIO.class.getName());
    return properties;
  }

  /** CareForTable's parameters, as the state machine's CareForTable state selects them. */
  private static JsonNode careRequest(ObjectNode state) {
    ObjectNode request = select(state, "job", "lease");
    request.set("work_location", state.get("plan").get("plan_ref").get("work_location"));
    request.set("steps", state.get("settings").get("care"));
    return request;
  }

  private static List<ObjectNode> answers(ExecutionEnvironment.Measured measured)
      throws IOException {
    List<ObjectNode> answers = new ArrayList<>();
    for (RuntimeApiStub.Invocation invocation : measured.invocations()) {
      answers.add((ObjectNode) JSON.readTree(invocation.answer()));
    }
    return answers;
  }

  private JsonNode acquireInput(String table, Map<String, String> catalog) {
    return StatePayloads.acquireLease(
        table, catalog, "s3://" + bucket + "/work/" + table, CARE_STEPS);
  }

  private static ObjectNode object(String name, JsonNode value) {
    ObjectNode node = JSON.createObjectNode();
    node.set(name, value);
    return node;
  }
}
