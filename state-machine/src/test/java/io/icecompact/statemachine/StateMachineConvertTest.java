package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanRef;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.FlinkUpsertTable.Mode;
import io.icecompact.fixtures.FlinkUpsertTable.Shape;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.testkit.CommitFaultCatalog;
import io.icecompact.testkit.CommitFaultCatalog.Fault;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code "action": "convert-equality-deletes"} on the real definition: the same states as a
 * compaction, the planner, worker and committer dispatching to the conversion. Flink-shaped upsert
 * tables ({@link FlinkUpsertTable}, partitioned by {@code bucket(4, id)}: one group per bucket)
 * keep exactly their live rows and their data files, and lose exactly the equality deletes whose
 * every data file was converted; then the fault matrix of the compaction path (worker failing once
 * or for good, S3 faults in the worker and the committer, a commit whose outcome is unknown, a
 * concurrent writer), each checked against the table, not only the status ({@link #assertHolds}).
 */
class StateMachineConvertTest extends StateMachineTestBase {
  private static final String ACTION = JobAction.CONVERT_EQUALITY_DELETES.value();

  /** Shape.small partitions by bucket(4, id); a partition's data files make one group. */
  private static final int BUCKETS = 4;

  /** The attempts of one S3 request: S3FileIO's first and its 5 retries. */
  private static final int SDK_ATTEMPTS = 6;

  /** The attempts the definition gives the worker on TransientException. */
  private static final int WORKER_ATTEMPTS = 4;

  /** The writer of the table under test, to write more checkpoints as a concurrent Flink job. */
  private FlinkUpsertTable cdc;

  private String commitFaultWarehouse;

  @AfterEach
  void forgetCommitFaults() {
    if (commitFaultWarehouse != null) {
      CommitFaultCatalog.reset(commitFaultWarehouse);
    }
  }

  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of("v2, position delete files", Shape.small(Mode.UPSERT, 2, false), false),
        Arguments.of(
            "v3 composite key, deletion vectors", Shape.small(Mode.UPSERT, 3, true), false),
        // Iceberg's DynamoDbCatalog commits by a conditional write on its own table
        Arguments.of(
            "v2, DynamoDB catalog, position delete files",
            Shape.small(Mode.UPSERT, 2, false),
            true));
  }

  // ---- the happy path, against the embedded runner ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void convertsEveryEqualityDeleteOfAnUpsertTableAsTheEmbeddedRunnerDoes(
      String name, Shape shape, boolean dynamoDbCatalog) throws Exception {
    Map<String, String> catalog = dynamoDbCatalog ? dynamoDbCatalog() : jdbcCatalog();
    Table table = createUpsertTable(catalog, shape);
    Before before = Before.of(table);
    assertThat(before.equalityDeletes()).isNotEmpty();
    int snapshotsBefore = snapshots(table).size();
    // the same stream written again into a twin table, converted by the embedded runner
    Table twin =
        FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse("db.twin"), shape).table();
    assertThat(LiveRows.multiset(twin)).isEqualTo(before.rows());
    JobResult embedded =
        new EmbeddedJobRunner(1, ProgressListener.NONE)
            .run(
                new JobSpec(null, "db.twin", catalog, Map.of(), null, null, null)
                    .withAction(JobAction.CONVERT_EQUALITY_DELETES));

    ExecutionResult result = run(convertInput(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("snapshot_ids")).hasSize(1);
    long snapshotId = output.get("snapshot_ids").get(0).asLong();
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(BUCKETS);
    assertThat(output.get("failed_groups").asInt()).isZero();
    assertThat(output.get("conflicted_groups").asInt()).isZero();
    assertThat(output.get("rewritten_data_files_count").asInt()).isZero();
    assertThat(output.get("added_data_files_count").asInt()).isZero();
    assertThat(output.get("verification").get("verified").asBoolean())
        .as("%s", output.get("verification"))
        .isTrue();
    JsonNode conversion = output.get("conversion");
    assertThat(conversion.get("converted_equality_delete_files_count").asInt())
        .isEqualTo(before.equalityDeletes().size());
    assertThat(conversion.get("kept_equality_delete_files_count").asInt()).isZero();
    assertThat(conversion.get("converted_data_files_count").asInt())
        .isEqualTo(before.dataFilesWithEqualityDeletes());
    assertThat(conversion.get("deleted_positions_count").asLong()).isPositive();
    wholeResult(output)
        .get("groups")
        .forEach(
            group -> {
              assertJobStatus(group, "CONVERTED");
              assertThat(group.get("snapshot_id").asLong()).isEqualTo(snapshotId);
            });

    // one replace snapshot, no row changed, no data file changed, no equality delete left
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(added.get(0).summary())
        .containsEntry(
            "removed-equality-delete-files", Integer.toString(before.equalityDeletes().size()))
        .containsEntry(
            "added-delete-files", conversion.get("added_position_delete_files_count").asText());
    JobResult whole = assertHolds(jobId, before.rows(), before);
    assertThat(whole.groups()).hasSize(BUCKETS);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES)).isEmpty();
    if (shape.formatVersion() >= 3) {
      for (FileScanTask task : liveTasks(table())) {
        assertThat(task.deletes().stream().filter(ContentFileUtil::isDV).count())
            .as("DVs of %s", task.file().location())
            .isLessThanOrEqualTo(1);
      }
    }
    assertInvocations(1, 1, BUCKETS, 0, 1, 1);
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("COMMITTED");
    assertThat(leaseItem()).containsKey("released_at");

    // the execution's output is the embedded runner's result on the twin, but for what names the
    // job, its table, its snapshot and its timings
    ObjectNode expected =
        (ObjectNode) JobJson.mapper().readTree(JobJson.toJson(embedded.summary("-")));
    ObjectNode actual = ((ObjectNode) output.deepCopy()).without("care");
    for (ObjectNode side : List.of(expected, actual)) {
      side.remove(
          List.of(
              "job_id", "table", "snapshot_ids", "duration_millis", "result_location", "commit"));
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(embedded.status()).isEqualTo(JobStatus.COMMITTED);
    // group by group: the same partitions, files and deleted rows
    List<GroupOutcome> embeddedGroups = embedded.groups();
    assertThat(whole.groups()).hasSameSizeAs(embeddedGroups);
    for (int g = 0; g < embeddedGroups.size(); g++) {
      GroupOutcome mine = whole.groups().get(g);
      GroupOutcome theirs = embeddedGroups.get(g);
      assertThat(mine.status()).isEqualTo(theirs.status());
      assertThat(mine.partition()).isEqualTo(theirs.partition());
      assertThat(mine.inputFiles()).isEqualTo(theirs.inputFiles());
      assertThat(mine.outputFiles()).isEqualTo(theirs.outputFiles());
      assertThat(mine.outputRows()).isEqualTo(theirs.outputRows());
    }
  }

  // ---- the worker ----

  @Test
  void aWorkerFailingTransientlyOnceIsRetriedAndTheJobConvertsEverything() {
    Map<String, String> direct = jdbcCatalog();
    Table table = createUpsertTable(direct, Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    // every attempt of the PUT of group 1's first position delete file in its attempt 1 (one
    // file: the worker writes a few files at once, whose PUTs would share the faults)
    int flaky = 1;
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown())
            .onMethod("PUT")
            .onKeys(String.format("/data/.*/%05d-1-.*-00001\\.parquet$", flaky))
            .times(SDK_ATTEMPTS));
    List<Throwable> thrown = new CopyOnWriteArrayList<>();
    RewriteGroupHandler real = rewriteGroupHandler();
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          try {
            real.handleRequest(in, out, context);
          } catch (Throwable t) {
            thrown.add(t);
            throw t;
          }
        });

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "COMMITTED");
    assertThat(thrown).singleElement().isExactlyInstanceOf(TransientException.class);
    assertThat(faults.injected())
        .hasSize(SDK_ATTEMPTS)
        .allSatisfy(
            fault -> assertThat(fault.key()).contains(String.format("/%05d-1-%s-", flaky, jobId)));
    assertThat(rewriteInvocationsByGroup()).isEqualTo(Map.of(0, 1, 1, 2, 2, 1, 3, 1));
    assertInvocations(1, 1, BUCKETS + 1, 0, 1, 1);
    // the stored conversion of the flaky group is its attempt 2's, whose files are committed
    ConvertedGroup retried =
        new JobStore(access.fileIO())
            .readDocument(committedWork().convertedGroup(flaky), ConvertedGroup.class)
            .orElseThrow();
    assertThat(retried.attempt()).isEqualTo(2);
    assertThat(retried.files())
        .filteredOn(file -> file.positionDeletes() != null)
        .isNotEmpty()
        .allSatisfy(
            file ->
                assertThat(fileName(file.positionDeletes().get("file-path").asText()))
                    .startsWith(String.format("%05d-2-%s-", flaky, jobId)));
    assertHolds(jobId, before.rows(), before);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES)).isEmpty();
  }

  @Test
  void aGroupWhoseDataFileCannotBeReadFailsAloneAndKeepsItsEqualityDeletes() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    FileScanTask victim =
        liveTasks(table).stream().filter(t -> hasEqualityDeletes(t)).findFirst().orElseThrow();
    String partition = partitionOf(table, victim);
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys(Pattern.quote(fileName(victim.file().location()))));

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(BUCKETS - 1);
    assertThat(output.get("failed_groups").asInt()).isEqualTo(1);
    JobResult whole = assertHolds(jobId, before.rows(), before);
    GroupOutcome failed = onlyGroupNot(GroupOutcome.Status.CONVERTED, whole);
    assertThat(failed.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(failed.partition()).isEqualTo(partition);
    assertThat(failed.reason())
        .startsWith("TransientException: ")
        .contains(victim.file().location())
        .contains("Status Code: 500");
    assertThat(rewriteInvocationsByGroup().get(failed.groupIndex())).isEqualTo(WORKER_ATTEMPTS);
    assertThat(lambda.invocations(RECORD_GROUP_FAILURE)).isEqualTo(1);
    // the failed partition's equality deletes are all still there; the other partitions' are gone
    Set<String> left = liveDeletes(table(), FileContent.EQUALITY_DELETES);
    assertThat(left)
        .isNotEmpty()
        .isEqualTo(before.equalityDeletesOfPartition(partition))
        .isNotEqualTo(before.equalityDeletes());
    assertThat(whole.conversion().convertedEqualityDeleteFilesCount())
        .isEqualTo(before.equalityDeletes().size() - left.size());
  }

  /**
   * With {@code allow-partial=false}, one group failing (its data file unreadable) commits nothing:
   * every equality delete stays, no snapshot is made, and the delete files the other groups wrote
   * are deleted.
   */
  @Test
  void withoutAllowPartialAFailedGroupCommitsNothingAndDeletesTheOthersFiles() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    long snapshotBefore = table.currentSnapshot().snapshotId();
    FileScanTask victim =
        liveTasks(table).stream().filter(t -> hasEqualityDeletes(t)).findFirst().orElseThrow();
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys(Pattern.quote(fileName(victim.file().location()))));
    Map<String, Object> input = convertInput(faultyJdbcCatalog());
    input.put("options", Map.of("allow-partial", "false"));

    ExecutionResult result = run(input);

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "FAILED");
    assertThat(output.get("rewritten_groups").asInt()).isZero();
    assertThat(output.get("failed_groups").asInt()).isEqualTo(BUCKETS);
    JobResult whole = assertHolds(jobId, before.rows(), before);
    assertThat(table().currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES))
        .isEqualTo(before.equalityDeletes());
    assertThat(whole.groups())
        .filteredOn(group -> group.status() == GroupOutcome.Status.FAILED)
        .hasSize(1);
    // the other groups converted their files, then were held back with the job
    assertThat(whole.groups())
        .filteredOn(group -> group.status() != GroupOutcome.Status.FAILED)
        .hasSize(BUCKETS - 1)
        .allSatisfy(
            group -> assertThat(group.reason()).contains("allow-partial=false and a group failed"));
    assertThat(jobFiles(jobId)).as("delete files the job wrote, left in storage").isEmpty();
  }

  /**
   * A worker stopped at its timeout after writing its deletion vectors and before storing its
   * result, unable to delete them (as a stopped Lambda is): its group fails, its equality deletes
   * stay, and the committer deletes the files it recorded before creating them.
   */
  @Test
  void aWorkerStoppedBeforeStoringItsConversionFailsItsGroupAndTheCommitterDeletesItsFiles() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 3, false));
    Before before = Before.of(table);
    int slow = 1;
    S3FaultRule noResult =
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("PUT")
            .onKeys(String.format("/results/group-%05d\\.converted\\.json$", slow));
    S3FaultRule noCleanup =
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("DELETE")
            // a v3 table's deletion vectors are in the data folder's root
            .onKeys(String.format("/data/(.*/)?%05d-1-job-[^/]*$", slow));
    RewriteGroupHandler real = rewriteGroupHandler();
    Predicate<String> slowGroup =
        payload -> tree(payload).get("group").get("group_index").asInt() == slow;
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          byte[] payload = in.readAllBytes();
          boolean stopped = slowGroup.test(new String(payload, StandardCharsets.UTF_8));
          if (stopped) {
            faults.inject(noResult).inject(noCleanup);
          }
          try {
            real.handleRequest(new ByteArrayInputStream(payload), out, context);
          } finally {
            if (stopped) {
              faults.remove(noResult).remove(noCleanup);
            }
          }
        });
    lambda.timeOut(REWRITE_GROUP, slowGroup, 1);

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("failed_groups").asInt()).isEqualTo(1);
    JobResult whole = assertHolds(jobId, before.rows(), before);
    GroupOutcome failed = onlyGroupNot(GroupOutcome.Status.CONVERTED, whole);
    assertThat(failed.groupIndex()).isEqualTo(slow);
    assertThat(failed.status()).isEqualTo(GroupOutcome.Status.FAILED);
    // as a rewrite's: the error type, then the message (before the fix: "worker failed: " and
    // the message, without the type)
    assertThat(failed.reason())
        .startsWith("Sandbox.Timedout: RequestId: ")
        .endsWith(" Error: Task timed out after 900.00 seconds");
    assertInvocations(1, 1, BUCKETS, 1, 1, 1);
    // the stopped attempt wrote deletion vectors and could not delete them; the committer did
    assertThat(faults.injected()).anyMatch(f -> f.method().equals("DELETE"));
    String attemptFiles = String.format("/%05d-1-%s-", slow, jobId);
    assertThat(storedObjects()).noneMatch(location -> location.contains(attemptFiles));
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES))
        .isNotEmpty()
        .isEqualTo(before.equalityDeletesOfPartition(failed.partition()));
  }

  @Test
  void workerReadsMeetingThrottlesAndResetsStillConvertEveryGroupOfAV3Table() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 3, false));
    Before before = Before.of(table);
    for (S3Fault fault :
        List.of(S3Fault.slowDown(), S3Fault.connectionReset(), S3Fault.resetMidResponse())) {
      faults.inject(S3FaultRule.of(fault).onMethod("GET").onKeys("/data/").everyNth(4).times(10));
    }

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected())
        .extracting(f -> f.fault().getClass().getSimpleName())
        .contains("ErrorResponse", "ConnectionReset", "ResetMidResponse");
    assertHolds(result.outputJson().get("job_id").asText(), before.rows(), before);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES)).isEmpty();
  }

  // ---- the committer ----

  @Test
  void aMetadataFileWriteFailingPastTheSdkIsRetriedByTheDefinitionAndConvertsOnce() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    int snapshotsBefore = snapshots(table).size();
    // only a commit writes a metadata file: every attempt of the first one fails, then the first
    // write of the retried committer lands with its answer cut
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("PUT")
            .onKeys("\\.metadata\\.json$")
            .times(SDK_ATTEMPTS));
    faults.inject(
        S3FaultRule.of(S3Fault.resetMidResponse())
            .onMethod("PUT")
            .onKeys("\\.metadata\\.json$")
            .times(1));

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(COMMIT_SNAPSHOT)).isEqualTo(2);
    assertThat(faults.injected()).hasSize(SDK_ATTEMPTS + 1);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertHolds(result.outputJson().get("job_id").asText(), before.rows(), before);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES)).isEmpty();
  }

  @Test
  void aCommitThatDidNotLandIsUnknownKeepsEveryFileAndARecommitConvertsOnceOnAV3Table() {
    Map<String, String> plain = jdbcCatalog();
    Table table = createUpsertTable(plain, Shape.small(Mode.UPSERT, 3, false));
    Before before = Before.of(table);
    int snapshotsBefore = snapshots(table).size();
    Map<String, String> catalog = CommitFaultCatalog.wrap(plain);
    commitFaultWarehouse = catalog.get("warehouse");
    CommitFaultCatalog.reset(commitFaultWarehouse);
    CommitFaultCatalog.arm(commitFaultWarehouse, Fault.DID_NOT_LAND);

    ExecutionResult unknown = run(convertInput(catalog));

    assertSucceeded(unknown, COMPACTED_PATH);
    assertThat(CommitFaultCatalog.fired(commitFaultWarehouse)).isEqualTo(1);
    JsonNode output = unknown.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "UNKNOWN");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertThat(LiveRows.multiset(table())).isEqualTo(before.rows());
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES))
        .isEqualTo(before.equalityDeletes());
    List<String> outputs = jobFiles(jobId);
    assertThat(outputs).as("the job's delete files, which may be live, are all kept").isNotEmpty();
    assertThat(jobLog().get(0).status()).isEqualTo("UNKNOWN");
    assertThat(leaseItem()).containsKey("released_at");

    int conversions = lambda.invocations(REWRITE_GROUP);
    Map<String, Object> recommit = convertInput(catalog);
    recommit.put("job_id", jobId);
    recommit.put("recommit", true);
    ExecutionResult committed = run(recommit);

    assertThat(committed.status())
        .as("%s %s", committed.error(), committed.cause())
        .isEqualTo("SUCCEEDED");
    assertJobStatus(committed.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(REWRITE_GROUP))
        .as("nothing converted again")
        .isEqualTo(conversions);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertHolds(jobId, before.rows(), before);
    assertThat(liveDeleteFiles(table())).as("the kept outputs are live now").containsAll(outputs);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES)).isEmpty();

    // a second re-commit returns the stored result: no second snapshot
    ExecutionResult again = run(recommit);
    assertThat(again.status()).isEqualTo("SUCCEEDED");
    assertThat(again.outputJson().get("snapshot_ids"))
        .isEqualTo(committed.outputJson().get("snapshot_ids"));
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
  }

  @Test
  void aCommitThatLandedButLostItsAnswerIsFoundByItsStampAndReportedConverted() {
    Map<String, String> plain = jdbcCatalog();
    Table table = createUpsertTable(plain, Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    int snapshotsBefore = snapshots(table).size();
    Map<String, String> catalog = CommitFaultCatalog.wrap(plain);
    commitFaultWarehouse = catalog.get("warehouse");
    CommitFaultCatalog.reset(commitFaultWarehouse);
    CommitFaultCatalog.arm(commitFaultWarehouse, Fault.LANDED_ANSWER_LOST);

    ExecutionResult result = run(convertInput(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(CommitFaultCatalog.fired(commitFaultWarehouse)).isEqualTo(1);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).as("one snapshot, committed once").hasSize(1);
    assertThat(output.get("snapshot_ids").get(0).asText())
        .isEqualTo(Long.toString(added.get(0).snapshotId()));
    assertHolds(output.get("job_id").asText(), before.rows(), before);
    assertThat(liveDeletes(table(), FileContent.EQUALITY_DELETES)).isEmpty();
  }

  // ---- other writers ----

  @Test
  void upsertsCommittedWhileWorkersRunSurviveAndTheConversionCommits() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    int snapshotsBefore = snapshots(table).size();
    afterGroupZero(
        () -> {
          cdc.checkpoint();
          cdc.checkpoint();
        });

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "COMMITTED");
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(3);
    assertReplaceStampedWith(added.get(2), jobId);
    Map<String, Long> model = LiveRows.multiset(cdc.expectedLiveRows(), table());
    assertThat(model).isNotEqualTo(before.rows());
    assertHolds(jobId, model, before);
    // the checkpoints' equality deletes stay and apply; every one the job saw is gone
    Set<String> left = liveDeletes(table(), FileContent.EQUALITY_DELETES);
    assertThat(left).isNotEmpty().doesNotContainAnyElementsOf(before.equalityDeletes());
  }

  @Test
  void aCompactionCommittedWhileWorkersRunRefusesTheConversionAndNoRowChanges() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createUpsertTable(catalog, Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    AtomicReference<JobResult> compaction = new AtomicReference<>();
    afterGroupZero(
        () ->
            compaction.set(
                new EmbeddedJobRunner(1, ProgressListener.NONE)
                    .run(new JobSpec(null, TABLE, catalog, Map.of(), null, null, null))));

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(compaction.get().status()).isEqualTo(JobStatus.COMMITTED);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "CONTENDED");
    assertThat(output.get("snapshot_ids")).isEmpty();
    assertThat(output.get("conflicted_groups").asInt()).isEqualTo(BUCKETS);
    JobResult whole = assertHolds(jobId, before.rows(), null);
    assertThat(whole.groups())
        .allSatisfy(
            g -> {
              assertThat(g.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
              assertThat(g.reason()).contains("was removed by snapshot");
            });
    assertThat(jobFiles(jobId)).as("the conversion's delete files").isEmpty();
  }

  /**
   * Another writer removes a data file of group 1 while the workers run (as a delete of whole files
   * does): that group is refused, since an equality delete it retires would still have to apply to
   * wherever those rows went; it ends CONFLICTED, its delete files are deleted and its equality
   * deletes stay; the other groups commit. The first committer commits, deletes the conflicted
   * group's files and then cannot store its result: its retry finds the snapshot by its stamp and
   * must report the groups that snapshot holds. Before the fix the retry failed the job
   * (JobInvariantViolationException: the conflicted group's delete file "does not exist") although
   * its snapshot had landed; without the check it would have reported that group CONVERTED.
   */
  @Test
  void
      aDataFileRemovedWhileWorkersRunConflictsItsGroupAlsoWhenTheCommitterIsRetriedAfterCommitting() {
    Table table = createUpsertTable(jdbcCatalog(), Shape.small(Mode.UPSERT, 2, false));
    Before before = Before.of(table);
    int snapshotsBefore = snapshots(table).size();
    int conflicted = 1;
    AtomicReference<String> target = new AtomicReference<>();
    AtomicReference<Map<String, Long>> model = new AtomicReference<>();
    RewriteGroupHandler worker = rewriteGroupHandler();
    AtomicBoolean once = new AtomicBoolean(true);
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          byte[] payload = in.readAllBytes();
          worker.handleRequest(new ByteArrayInputStream(payload), out, context);
          JsonNode request = tree(new String(payload, StandardCharsets.UTF_8)).get("group");
          if (request.get("group_index").asInt() == 0 && once.compareAndSet(true, false)) {
            target.set(removeAFileOf(request, conflicted));
            model.set(LiveRows.multiset(table()));
          }
        });
    // the first committer commits, then cannot store its result (every attempt of the PUT of
    // result.json fails): it fails transiently after its snapshot landed, and the retry finds the
    // snapshot by its stamp
    CommitSnapshotHandler committer = new CommitSnapshotHandler(leaseSteps.lease());
    S3FaultRule noResult =
        S3FaultRule.of(S3Fault.internalError()).onMethod("PUT").onKeys("/result\\.json$");
    AtomicInteger commits = new AtomicInteger();
    List<Throwable> thrown = new CopyOnWriteArrayList<>();
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          boolean first = commits.incrementAndGet() == 1;
          if (first) {
            faults.inject(noResult);
          }
          try {
            committer.handleRequest(in, out, context);
          } catch (Throwable t) {
            thrown.add(t);
            throw t;
          } finally {
            faults.remove(noResult);
          }
        });

    ExecutionResult result = run(convertInput(faultyJdbcCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(target.get()).isNotNull();
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertThat(thrown)
        .singleElement()
        .satisfies(t -> assertThat(t).hasMessageContaining("result.json"));
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(BUCKETS - 1);
    assertThat(output.get("conflicted_groups").asInt()).isEqualTo(1);
    assertThat(output.get("verification").get("verified").asBoolean())
        .as("%s", output.get("verification"))
        .isTrue();
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(2);
    assertReplaceStampedWith(added.get(1), jobId);
    JobResult whole = assertHolds(jobId, model.get(), null);
    assertThat(liveTasks(table())).hasSize(before.dataFiles().size() - 1);
    GroupOutcome refused = onlyGroupNot(GroupOutcome.Status.CONVERTED, whole);
    assertThat(refused.groupIndex()).isEqualTo(conflicted);
    assertThat(refused.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
    assertThat(refused.reason()).contains("data file " + target.get() + " was removed by snapshot");
    assertThat(lambda.invocations(COMMIT_SNAPSHOT)).isEqualTo(2);
  }

  /** As another writer: removes the first data file of group {@code groupIndex}; returns it. */
  private String removeAFileOf(JsonNode request, int groupIndex) {
    JobStore store = new JobStore(access.fileIO());
    PlanRef ref = JobJson.mapper().convertValue(request.get("plan_ref"), PlanRef.class);
    JobPlan plan = store.readPlan(ref.jobId(), ref.planLocation(), ref.planSha256());
    DataFile victim = (DataFile) store.readGroupTasks(ref.work(), plan, groupIndex).get(0).file();
    table().newDelete().deleteFile(victim).commit();
    return victim.location();
  }

  // ---- helpers ----

  /**
   * The table of {@code shape}, written through the test's own view of {@code catalog}. That view
   * retries each S3 request more than S3FileIO's default 5 times: the fixture's hundreds of PUTs
   * from two threads, on a loaded machine, at times met a run of stale keep-alive connections to
   * the local S3 (the JDK keeps up to 5 per host) and failed with "Error writing request body to
   * server" after 6 attempts; the execution's functions keep the defaults.
   */
  private Table createUpsertTable(Map<String, String> catalog, Shape shape) {
    Map<String, String> writer = new TreeMap<>(catalog);
    writer.put("s3.retry.num-retries", "12");
    access = new TableAccess(writer);
    cdc = FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape);
    return cdc.table();
  }

  private static Map<String, Object> convertInput(Map<String, String> catalog) {
    Map<String, Object> input = input(catalog);
    input.put("action", ACTION);
    return input;
  }

  /** Once group 0's worker has finished, {@code writer} commits as another writer. */
  private void afterGroupZero(Runnable writer) {
    RewriteGroupHandler real = rewriteGroupHandler();
    AtomicBoolean once = new AtomicBoolean(true);
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          byte[] payload = in.readAllBytes();
          real.handleRequest(new ByteArrayInputStream(payload), out, context);
          JsonNode group = tree(new String(payload, StandardCharsets.UTF_8)).get("group");
          if (group.get("group_index").asInt() == 0 && once.compareAndSet(true, false)) {
            writer.run();
          }
        });
  }

  private static boolean hasEqualityDeletes(FileScanTask task) {
    return task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES);
  }

  /** What the table held before the job. */
  private record Before(
      Map<String, Long> rows,
      Set<String> dataFiles,
      Set<String> equalityDeletes,
      Map<String, Set<String>> equalityDeletesByPartition,
      int dataFilesWithEqualityDeletes) {
    static Before of(Table table) {
      Set<String> data = new TreeSet<>();
      Set<String> equality = new TreeSet<>();
      Map<String, Set<String>> byPartition = new TreeMap<>();
      int withEquality = 0;
      for (FileScanTask task : liveTasks(table)) {
        data.add(task.file().location());
        if (hasEqualityDeletes(task)) {
          withEquality++;
        }
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.EQUALITY_DELETES) {
            equality.add(delete.location());
            byPartition
                .computeIfAbsent(partitionOf(table, task), p -> new TreeSet<>())
                .add(delete.location());
          }
        }
      }
      return new Before(LiveRows.multiset(table), data, equality, byPartition, withEquality);
    }

    Set<String> equalityDeletesOfPartition(String partition) {
      return equalityDeletesByPartition.getOrDefault(partition, Set.of());
    }
  }

  /**
   * What every conversion must leave, whatever failed on the way; returns the job's stored result.
   *
   * <ul>
   *   <li>the live rows are the model's;
   *   <li>the data files the job saw are all live ({@code before}; null when another writer rewrote
   *       them), and the job added or removed none;
   *   <li>every file a snapshot references exists;
   *   <li>the job's snapshots are those stamped with its id; a CONVERTED group's committed delete
   *       files are live and, when the job kept no equality delete, its data files keep none of the
   *       equality deletes they had; any other group's data files keep every equality delete they
   *       had and its delete files are neither live nor stored;
   *   <li>every file the job wrote in the data folder is live, or named by the result's problems;
   *   <li>the lease is released and the job log has the job's status.
   * </ul>
   */
  private JobResult assertHolds(String jobId, Map<String, Long> model, Before before) {
    Table table = table();
    assertThat(LiveRows.multiset(table)).as("live rows against the model").isEqualTo(model);
    List<FileScanTask> live = liveTasks(table);
    Set<String> liveData = new TreeSet<>();
    Map<String, Set<String>> liveEqualityDeletes = new TreeMap<>();
    live.forEach(
        task -> {
          liveData.add(task.file().location());
          task.deletes().stream()
              .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
              .forEach(
                  d ->
                      liveEqualityDeletes
                          .computeIfAbsent(task.file().location(), f -> new TreeSet<>())
                          .add(d.location()));
        });
    if (before != null) {
      assertThat(liveData).as("live data files").containsAll(before.dataFiles());
    }
    Set<String> stored = storedObjects();
    CompactionInvariants files = new CompactionInvariants(table, s3.client(), bucket);
    Set<String> missing = new TreeSet<>(files.referencedFiles());
    missing.removeAll(stored);
    assertThat(missing).as("files the table's snapshots reference that storage lacks").isEmpty();

    JobStore store = new JobStore(table.io());
    WorkLocation work = WorkLocation.of(null, table.location(), table.name(), jobId);
    JobResult result =
        store
            .readDocument(work.jobResult(), JobResult.class)
            .orElseThrow(() -> new AssertionError("job " + jobId + " stored no result"));
    List<Long> stamped = new ArrayList<>();
    table
        .snapshots()
        .forEach(
            snapshot -> {
              if (jobId.equals(snapshot.summary().get("icecompact.job-id"))) {
                stamped.add(snapshot.snapshotId());
                assertThat(snapshot.summary())
                    .as("a conversion adds and removes no data file")
                    .doesNotContainKeys("added-data-files", "deleted-data-files");
              }
            });
    assertThat(result.snapshotIds()).containsExactlyElementsOf(stamped);
    JobPlan plan =
        store.readPlan(jobId, work.plan(), store.storedPlanSha256(work.plan()).orElseThrow());
    assertThat(plan.converts()).isTrue();
    Set<String> liveDeletes = liveDeleteFiles(table);
    for (GroupOutcome group : result.groups()) {
      String what =
          "group " + group.groupIndex() + " " + group.status() + " (" + group.reason() + ")";
      Optional<ConvertedGroup> converted =
          store.readDocument(work.convertedGroup(group.groupIndex()), ConvertedGroup.class);
      Set<String> outputs = new TreeSet<>();
      converted.ifPresent(
          c ->
              c.files().stream()
                  .filter(f -> f.positionDeletes() != null)
                  .forEach(f -> outputs.add(f.positionDeletes().get("file-path").asText())));
      List<FileScanTask> tasks = store.readGroupTasks(work, plan, group.groupIndex());
      if (group.status() == GroupOutcome.Status.CONVERTED) {
        assertThat(outputs).as("outputs of %s", what).isNotEmpty();
        assertThat(liveDeletes).as("live delete files after %s", what).containsAll(outputs);
        assertThat(stamped).as("snapshot of %s", what).contains(group.snapshotId());
        if (result.conversion().keptEqualityDeleteFilesCount() == 0) {
          for (FileScanTask task : tasks) {
            Set<String> had = equalityDeletesOf(task);
            assertThat(liveEqualityDeletes.getOrDefault(task.file().location(), Set.of()))
                .as("equality deletes of %s after %s", task.file().location(), what)
                .doesNotContainAnyElementsOf(had);
          }
        }
      } else {
        assertThat(outputs).as("outputs of %s", what).noneMatch(liveDeletes::contains);
        assertThat(outputs).as("outputs of %s still stored", what).noneMatch(stored::contains);
        for (FileScanTask task : tasks) {
          if (liveData.contains(task.file().location())) {
            assertThat(liveEqualityDeletes.getOrDefault(task.file().location(), Set.of()))
                .as("equality deletes of %s after %s", task.file().location(), what)
                .containsAll(equalityDeletesOf(task));
          }
        }
      }
    }
    assertThat(result.conversion()).isNotNull();
    List<String> problems = result.verification().problems();
    assertThat(jobFiles(jobId))
        .as("files of job %s that no snapshot holds, against its problems %s", jobId, problems)
        .allMatch(
            location ->
                liveDeletes.contains(location)
                    || problems.stream().anyMatch(problem -> problem.contains(location)));
    assertThat(leaseItem()).as("the lease after the execution").containsKey("released_at");
    assertThat(jobLog()).isNotEmpty();
    assertThat(jobLog().get(0).status()).isEqualTo(result.status().name());
    return result;
  }

  private static Set<String> equalityDeletesOf(FileScanTask task) {
    Set<String> deletes = new TreeSet<>();
    task.deletes().stream()
        .filter(d -> d.content() == FileContent.EQUALITY_DELETES)
        .forEach(d -> deletes.add(d.location()));
    return deletes;
  }

  /** The live delete files of {@code content}, over every live data file. */
  private static Set<String> liveDeletes(Table table, FileContent content) {
    Set<String> deletes = new TreeSet<>();
    liveTasks(table)
        .forEach(
            task ->
                task.deletes().stream()
                    .filter(d -> d.content() == content)
                    .forEach(d -> deletes.add(d.location())));
    return deletes;
  }

  private static Set<String> liveDeleteFiles(Table table) {
    Set<String> deletes = new HashSet<>();
    liveTasks(table).forEach(task -> task.deletes().forEach(d -> deletes.add(d.location())));
    return deletes;
  }

  /** The files in the table's data folder whose names carry the job's id: the job's outputs. */
  private List<String> jobFiles(String jobId) {
    List<String> files = new ArrayList<>();
    for (S3Object object : s3.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
      if (object.key().contains("/data/") && object.key().contains(jobId)) {
        files.add("s3://" + bucket + "/" + object.key());
      }
    }
    return files;
  }

  private Set<String> storedObjects() {
    Set<String> locations = new HashSet<>();
    s3.client()
        .listObjectsV2Paginator(b -> b.bucket(bucket))
        .contents()
        .forEach(object -> locations.add("s3://" + bucket + "/" + object.key()));
    return locations;
  }

  private static GroupOutcome onlyGroupNot(GroupOutcome.Status status, JobResult result) {
    List<GroupOutcome> others = result.groups().stream().filter(g -> g.status() != status).toList();
    assertThat(others).hasSize(1);
    return others.get(0);
  }
}
