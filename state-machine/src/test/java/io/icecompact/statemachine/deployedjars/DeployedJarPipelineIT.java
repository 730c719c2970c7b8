package io.icecompact.statemachine.deployedjars;

import static io.icecompact.statemachine.StatePayloads.each;
import static io.icecompact.statemachine.StatePayloads.select;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.statemachine.ClassPathJars;
import io.icecompact.statemachine.LocalFunctionEnvironment;
import io.icecompact.statemachine.StatePayloads;
import io.icecompact.testkit.LocalDynamoDb;
import io.icecompact.testkit.LocalS3;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One compaction job per file format (Parquet, ORC and Avro, v2 and v3, every kind of delete to
 * apply; ORC without deletes, merged by copying stripes), each stage run by its deployable jar's
 * Lambda handler in a fresh JVM ({@link HandlerProbe}), the payloads passed between them as the
 * state machine passes them: AcquireLease and ReleaseLease from the lease jar, PlanRewrite from the
 * planner's, RewriteGroup (with the lease heartbeat) from the worker's, CommitSnapshot from the
 * committer's. A class a jar leaves out, or a format whose reader or writer is trimmed away, fails
 * here, not in Lambda; the rows are then read back by Iceberg's reader on this class path.
 *
 * <p>Runs in the integration-test phase, after the function modules' {@code package}.
 */
class DeployedJarPipelineIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LEASES = "icecompact-leases";

  /**
   * A table of the test: its format, format version, and whether it has deletes (ORC without:
   * merged by the stripe copy, its stripes made big enough for it by a small stripe size).
   */
  private record Kind(String format, int version, boolean deletes) {
    Map<String, String> properties() {
      return deletes
          ? Map.of(TableProperties.DEFAULT_FILE_FORMAT, format)
          : Map.of(
              TableProperties.DEFAULT_FILE_FORMAT,
              format,
              TableProperties.ORC_STRIPE_SIZE_BYTES,
              "16384");
    }
  }

  private static final Map<String, Kind> TABLES =
      Map.of(
          "db.parquet_v2", new Kind("parquet", 2, true),
          "db.orc_v2", new Kind("orc", 2, true),
          "db.orc_v3", new Kind("orc", 3, true),
          "db.orc_stripes", new Kind("orc", 2, false),
          "db.avro_v2", new Kind("avro", 2, true));

  private static Path root;
  private static LocalS3 s3;
  private static LocalDynamoDb dynamo;
  private static String bucket;

  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    root = Path.of(System.getProperty("icecompact.repository.dir")).toAbsolutePath().normalize();
    s3 = new LocalS3().start();
    dynamo = new LocalDynamoDb().start();
    LeaseTableSchema.create(dynamo.client(), LEASES);
    bucket = s3.createBucket("warehouse");
  }

  @AfterAll
  static void stop() {
    if (dynamo != null) {
      dynamo.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void everyFormatIsCompactedByTheDeployedJars() throws Exception {
    Map<String, String> catalog = catalog();
    Map<String, Map<String, Long>> rowsBefore = new TreeMap<>();
    Map<String, Integer> filesBefore = new TreeMap<>();
    try (TableAccess access = new TableAccess(catalog)) {
      for (Map.Entry<String, Kind> table : new TreeMap<>(TABLES).entrySet()) {
        Kind kind = table.getValue();
        Table created =
            FragmentedTable.create(
                access.catalog(),
                TableIdentifier.parse(table.getKey()),
                kind.deletes()
                    ? new FragmentedTable.Shape(2, 6, 100, kind.version(), 2, 5, true)
                    : new FragmentedTable.Shape(2, 6, 1000, kind.version(), 0, 0, true),
                kind.properties());
        assertThat(deletes(created) > 0)
            .as("%s has deletes to apply", table.getKey())
            .isEqualTo(kind.deletes());
        rowsBefore.put(table.getKey(), LiveRows.multiset(created));
        filesBefore.put(table.getKey(), dataFiles(created).size());
      }
    }
    List<String> names = new ArrayList<>(rowsBefore.keySet());

    List<ObjectNode> states =
        answers(
            "lease-fn",
            "io.icecompact.lease.lambda.AcquireLeaseHandler",
            each(
                names,
                name ->
                    StatePayloads.acquireLease(
                        name, catalog, "s3://" + bucket + "/work/" + name, List.of())));
    List<ObjectNode> plans =
        answers(
            "planner-fn",
            "io.icecompact.planner.lambda.PlanRewriteHandler",
            each(states, state -> select(state, "job")));
    List<JsonNode> groups = new ArrayList<>();
    for (int i = 0; i < states.size(); i++) {
      assertThat(plans.get(i).path("group_indexes").size())
          .as("groups planned for %s: %s", names.get(i), plans.get(i))
          .isPositive();
      states.get(i).set("plan", plans.get(i));
      groups.addAll(StatePayloads.mapItems(states.get(i)));
    }
    answers(
        "worker-fn",
        "io.icecompact.worker.lambda.RewriteGroupHandler",
        each(groups, StatePayloads::rewriteGroup));
    List<ObjectNode> results =
        answers(
            "committer-fn",
            "io.icecompact.committer.lambda.CommitSnapshotHandler",
            each(states, state -> select(state, "job", "plan", "lease")));
    for (int i = 0; i < states.size(); i++) {
      states.get(i).set("result", results.get(i));
    }
    answers(
        "lease-fn",
        "io.icecompact.lease.lambda.ReleaseLeaseHandler",
        each(states, state -> select(state, "job", "lease", "settings", "result")));

    try (TableAccess access = new TableAccess(catalog)) {
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        assertThat(results.get(i).path("status").asText())
            .as("%s: %s", name, results.get(i))
            .isEqualTo("COMMITTED");
        Table after = access.loadTable(name);
        FileFormat format = FileFormat.fromString(TABLES.get(name).format());
        JsonNode stored;
        try (InputStream in =
            access
                .fileIO()
                .newInputFile(results.get(i).path("result_location").asText())
                .newStream()) {
          stored = JSON.readTree(in); // the whole result: the answer leaves the groups out
        }
        assertThat(stored.path("groups"))
            .as("%s: %s", name, stored)
            .isNotEmpty()
            .allSatisfy(
                group ->
                    assertThat(group.path("rewrite_path").asText())
                        .isEqualTo(
                            TABLES.get(name).deletes()
                                ? format == FileFormat.PARQUET ? "columnar" : "generic"
                                : "orc-stripes"));
        assertThat(dataFiles(after)).extracting(DataFile::format).containsOnly(format);
        assertThat(dataFiles(after).size()).as(name).isLessThan(filesBefore.get(name));
        assertThat(deletes(after)).as("%s: every delete applied", name).isZero();
        assertThat(LiveRows.multiset(after)).as(name).isEqualTo(rowsBefore.get(name));
      }
    }
  }

  /** Runs {@code handler} of {@code module}'s jar on each payload; every answer must be one. */
  private List<ObjectNode> answers(String module, String handler, List<JsonNode> payloads)
      throws Exception {
    List<Path> extra =
        module.equals("planner-fn") || module.equals("committer-fn")
            ? List.of(ClassPathJars.find("sqlite-jdbc"))
            : List.of();
    List<byte[]> bytes = new ArrayList<>();
    for (JsonNode payload : payloads) {
      bytes.add(JSON.writeValueAsBytes(payload));
    }
    String function = handler.substring(handler.lastIndexOf('.') + 1);
    List<DeployedJar.Answer> answers =
        DeployedJar.of(root, module, extra)
            .invoke(
                handler,
                bytes,
                LocalFunctionEnvironment.of(dynamo.endpoint().toString(), LEASES, "WARN"),
                Files.createDirectories(dir.resolve(function)));
    List<ObjectNode> outputs = new ArrayList<>();
    for (int i = 0; i < answers.size(); i++) {
      DeployedJar.Answer answer = answers.get(i);
      assertThat(answer.failed())
          .as("%s of %s, invocation %d: %s", function, module, i, answer.error())
          .isFalse();
      outputs.add((ObjectNode) JSON.readTree(answer.output()));
    }
    return outputs;
  }

  /** Iceberg's JDBC catalog on SQLite over a warehouse on local S3, with S3FileIO. */
  private static Map<String, String> catalog() {
    Map<String, String> properties = new TreeMap<>(s3.icebergProperties());
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
    properties.put("jdbc.schema-version", "V1");
    properties.put("warehouse", "s3://" + bucket + "/warehouse");
    properties.put("io-impl", S3FileIO.class.getName());
    return properties;
  }

  private static List<DataFile> dataFiles(Table table) throws Exception {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    }
    return files;
  }

  private static long deletes(Table table) throws Exception {
    Set<String> deletes = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> task.deletes().forEach(d -> deletes.add(d.location())));
    }
    return deletes.size();
  }
}
