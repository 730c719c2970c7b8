package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.PLAN_REWRITE;
import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import io.icecompact.testkit.FaultyS3.InjectedFault;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * S3 failing under the real definition, at each stage, on v2 and v3 tables, with and without
 * another writer. The handlers reach S3 through the base's {@code faults} proxy (the execution's
 * catalog properties name the proxy); the test reads the table directly. Faults of a single stage
 * are in force only while its function runs ({@link #faultsDuring}); the workers' faults target
 * data files, which only they read and write. Every scenario checks {@link CompactionInvariants}
 * and the lease; docs/reliability.md lists the cells and what the user sees in each.
 *
 * <p>S3FileIO retries each request 5 times (Iceberg's default; the proxy's properties only shorten
 * the waits), so "transient" below means a fault the SDK absorbs, and "past the SDK" one that
 * outlasts a request's 6 attempts and reaches the handler, whose TransientException the definition
 * retries.
 */
class StateMachineS3FaultTest extends StateMachineTestBase {
  static final FragmentedTable.Shape V3 = new FragmentedTable.Shape(4, 5, 300, 3, 2, 10, true);

  /** The attempts of one S3 request: S3FileIO's first and its 5 retries. */
  private static final int SDK_ATTEMPTS = 6;

  /**
   * The attempts the definition gives the worker on TransientException: the first and 3 retries.
   */
  private static final int WORKER_ATTEMPTS = 4;

  /**
   * The attempts the definition gives the planner and the committer on TransientException: the
   * first and 12 retries, the throttling schedule's.
   */
  private static final int STEP_ATTEMPTS = 13;

  // ---- plan ----

  @Test
  void planReadsOfTableMetadataThrottledAFewTimesAreRetriedByTheSdk() {
    Map<String, Long> model = LiveRows.multiset(createTable(SHAPE));
    faultsDuring(
        PLAN_REWRITE,
        new PlanRewriteHandler(),
        S3FaultRule.of(S3Fault.slowDown()).onMethod("GET").onKeys("/metadata/").times(4));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(PLAN_REWRITE)).isEqualTo(1);
    assertThat(faults.injected()).hasSize(4);
    assertInvariants(model);
  }

  @Test
  void planManifestReadsFailingPastEveryRetryFailTheJobAsTransientWithTheTableUntouched() {
    Table table = createTable(V3);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    faultsDuring(
        PLAN_REWRITE,
        new PlanRewriteHandler(),
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys("/metadata/.*-m\\d+\\.avro$"));

    ExecutionResult result = run(input(faultyCatalog()));

    // before the fix, the SDK's S3Exception reached Step Functions untyped: no Retry, failed at
    // once
    assertFailedWith(result, "PlanRewrite", TransientException.class, "Cannot plan job ");
    assertThat(result.cause()).contains("Status Code: 500");
    assertThat(lambda.invocations(PLAN_REWRITE)).isEqualTo(STEP_ATTEMPTS);
    assertThat(lambda.invocations(REWRITE_GROUP)).isZero();
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertInvariants(model);
  }

  @Test
  void planDocumentsThatCannotBeStoredFailTheJobBeforeAnyWorkerRuns() {
    Table table = createTable(SHAPE);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    faultsDuring(
        PLAN_REWRITE,
        new PlanRewriteHandler(),
        S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys("/_icecompact/.*/plan/"));

    ExecutionResult result = run(input(faultyCatalog()));

    assertFailedWith(result, "PlanRewrite", TransientException.class, "Cannot write ");
    assertThat(result.cause()).contains("Please reduce your request rate");
    assertThat(lambda.invocations(PLAN_REWRITE)).isEqualTo(STEP_ATTEMPTS);
    assertThat(lambda.invocations(REWRITE_GROUP)).isZero();
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertInvariants(model);
  }

  // ---- rewrite ----

  @Test
  void workerReadsMeetingThrottlesAndResetsStillRewriteEveryGroupOfAV3Table() {
    Map<String, Long> model = LiveRows.multiset(createTable(V3));
    for (S3Fault fault :
        List.of(S3Fault.slowDown(), S3Fault.connectionReset(), S3Fault.resetMidResponse())) {
      faults.inject(S3FaultRule.of(fault).onMethod("GET").onKeys("/data/").everyNth(4).times(10));
    }

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected())
        .extracting(f -> f.fault().getClass().getSimpleName())
        .contains("ErrorResponse", "ConnectionReset", "ResetMidResponse");
    assertInvariants(model);
  }

  @Test
  void workerReadsStalledPastTheSocketTimeoutAreRetriedByTheSdk() {
    Map<String, Long> model = LiveRows.multiset(createTable(SHAPE));
    Map<String, String> catalog = faultyCatalog();
    catalog.put("http-client.urlconnection.socket-timeout-ms", "1000");
    faults.inject(
        S3FaultRule.of(S3Fault.delay(Duration.ofMillis(2500)))
            .onMethod("GET")
            .onKeys("/data/")
            .times(3));

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected()).hasSize(3);
    assertThat(lambda.invocations(REWRITE_GROUP)).isEqualTo(GROUPS);
    assertInvariants(model);
  }

  @Test
  void aGroupWhoseOutputWriteIsThrottledPastTheSdkIsRetriedByTheMapAndCommits() {
    Map<String, Long> model = LiveRows.multiset(createTable(SHAPE));
    // every attempt of the PUT of group 1's first output, in its first attempt (file name
    // 00001-1-...)
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown())
            .onMethod("PUT")
            .onKeys("/data/.*/00001-1-")
            .times(SDK_ATTEMPTS));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected())
        .hasSize(SDK_ATTEMPTS)
        .extracting(InjectedFault::key)
        .allMatch(k -> k.contains("/00001-1-"));
    assertThat(rewriteInvocationsByGroup()).isEqualTo(Map.of(0, 1, 1, 2, 2, 1, 3, 1));
    assertThat(lambda.invocations(RECORD_GROUP_FAILURE)).isZero();
    assertInvariants(model);
  }

  @Test
  void aGroupWhoseInputCannotBeReadFailsAloneAndTheOtherGroupsCommit() {
    Table table = createTable(SHAPE);
    Map<String, Long> model = LiveRows.multiset(table);
    FileScanTask victim = liveTasks(table).get(0);
    String partition = partitionOf(table, victim);
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys(Pattern.quote(fileName(victim.file().location()))));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS - 1);
    assertThat(output.get("failed_groups").asInt()).isEqualTo(1);
    GroupOutcome failed = onlyGroupNot("REWRITTEN", assertInvariants(model));
    assertThat(failed.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(failed.partition()).isEqualTo(partition);
    assertThat(failed.reason())
        .startsWith(
            "TransientException: Cannot rewrite data file " + victim.file().location() + ": ")
        .contains("Status Code: 500");
    assertThat(rewriteInvocationsByGroup().get(failed.groupIndex())).isEqualTo(WORKER_ATTEMPTS);
    assertThat(lambda.invocations(RECORD_GROUP_FAILURE)).isEqualTo(1);
  }

  @Test
  void aWorkerWhoseManifestReadFailsPastTheSdkIsRetriedByTheMapAndEveryGroupCommits() {
    Map<String, Long> model = LiveRows.multiset(createTable(SHAPE));
    // every attempt of the first manifest read after planning: the first worker's, since they run
    // one
    // at a time (concurrent workers reading the same manifest would share the faults and each
    // recover)
    faultsDuringRewriteStage(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys("/metadata/.*-m\\d+\\.avro$")
            .times(SDK_ATTEMPTS));
    Map<String, Object> input = input(faultyCatalog());
    input.put("max_concurrency", 1);

    ExecutionResult result = run(input);

    // before the fix the worker failed with the SDK's S3Exception, not retried: the group ended
    // FAILED
    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected()).hasSize(SDK_ATTEMPTS);
    assertThat(lambda.invocations(REWRITE_GROUP)).isEqualTo(GROUPS + 1);
    assertThat(lambda.invocations(RECORD_GROUP_FAILURE)).isZero();
    assertInvariants(model);
  }

  @Test
  void aGroupWhoseResultCannotBeStoredFailsAndLeavesNoUnlistedOutputOnAV3Table() {
    Map<String, Long> model = LiveRows.multiset(createTable(V3));
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys("/results/group-00001\\.json$"));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "PARTIAL");
    GroupOutcome failed = onlyGroupNot("REWRITTEN", assertInvariants(model));
    assertThat(failed.groupIndex()).isEqualTo(1);
    assertThat(failed.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(failed.reason())
        .startsWith("TransientException: ")
        .contains("Please reduce your request rate");
    assertThat(rewriteInvocationsByGroup().get(1)).isEqualTo(WORKER_ATTEMPTS);
    // before the fix each of the 4 attempts left its output file (00001-N-<job>-...) in the data
    // folder,
    // which the invariants' check of the job's files reports
  }

  @Test
  void aGroupResultWriteThatLandsButWhoseEveryAnswerIsLostKeepsItsOutputsAndCommitsThem() {
    Map<String, Long> model = LiveRows.multiset(createTable(SHAPE));
    // the first PUT of group 2's result lands with its answer cut; the SDK's 5 retries are
    // throttled
    String result2 = "/results/group-00002\\.json$";
    faults.inject(
        S3FaultRule.of(S3Fault.resetMidResponse()).onMethod("PUT").onKeys(result2).times(1));
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys(result2).times(SDK_ATTEMPTS - 1));

    ExecutionResult result = run(input(faultyCatalog()));

    // the worker failed, found its result stored when reading back, and kept its outputs; the Map's
    // retry found that result and returned it: attempt 1's outputs are committed
    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    // the cut answer first; how many throttled retries follow depends on the SDK's timing (on a
    // loaded
    // machine its call timeout may end them early): what matters is below
    assertThat(faults.injected()).hasSizeBetween(1, SDK_ATTEMPTS);
    assertThat(faults.injected().get(0).toString())
        .contains("ResetMidResponse", "group-00002.json");
    assertThat(rewriteInvocationsByGroup().get(2)).isEqualTo(2);
    JobResult whole = assertInvariants(model).orElseThrow();
    assertThat(whole.groups())
        .filteredOn(g -> g.groupIndex() == 2)
        .singleElement()
        .extracting(GroupOutcome::status)
        .isEqualTo(GroupOutcome.Status.REWRITTEN);
    WorkLocation work = committedWork();
    assertThat(new JobStore(access.fileIO()).readGroupResult(work, 2).orElseThrow().attempt())
        .isEqualTo(1);
  }

  @Test
  void anAppendCommittedWhileThrottledWorkersRunSurvivesAndEveryGroupOfAV3TableCommits() {
    createTable(V3);
    AtomicReference<Map<String, Long>> model = new AtomicReference<>();
    afterGroupZero(
        () -> {
          Table writer = table();
          writer
              .newAppend()
              .appendFile(
                  FragmentedTable.dataFile(
                      writer,
                      List.of(
                          FragmentedTable.newOrder(9_000_001L, 0),
                          FragmentedTable.newOrder(9_000_002L, 1))))
              .commit();
          return LiveRows.multiset(writer);
        },
        model);
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown()).onMethod("GET").onKeys("/data/").everyNth(3).times(8));
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys("/data/").everyNth(3).times(4));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(model.get()).isNotNull();
    assertThat(faults.injected()).isNotEmpty();
    assertInvariants(model.get());
  }

  @Test
  void anEqualityDeleteCommittedWhileThrottledWorkersRunStillAppliesToTheRewrittenFiles() {
    createTable(SHAPE);
    AtomicReference<Map<String, Long>> model = new AtomicReference<>();
    afterGroupZero(
        () -> {
          Table writer = table();
          FileScanTask task =
              liveTasks(writer).stream()
                  .filter(t -> partitionOf(writer, t).equals(partitionOfDay(writer, 2)))
                  .findFirst()
                  .orElseThrow();
          long[] orderIds =
              LiveRows.storedOrder(writer, (DataFile) task.file()).stream()
                  .limit(3)
                  .mapToLong(row -> (Long) row.getField("order_id"))
                  .toArray();
          writer
              .newRowDelta()
              .addDeletes(FragmentedTable.equalityDelete(writer, (DataFile) task.file(), orderIds))
              .commit();
          return LiveRows.multiset(writer);
        },
        model);
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("GET")
            .onKeys("/data/")
            .everyNth(3)
            .times(6));

    ExecutionResult result = run(input(faultyCatalog()));

    // the rewritten files keep the pinned sequence number, so the newer equality delete applies to
    // them
    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(model.get()).isNotNull();
    assertThat(faults.injected()).isNotEmpty();
    assertInvariants(model.get());
  }

  // ---- commit ----

  @Test
  void commitWritesOfManifestsThrottledAFewTimesCommitOnceOnAV3Table() {
    Table table = createTable(V3);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    faultsDuring(
        COMMIT_SNAPSHOT,
        new CommitSnapshotHandler(leaseSteps.lease()),
        S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys("/metadata/").times(4));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(COMMIT_SNAPSHOT)).isEqualTo(1);
    assertThat(faults.injected()).hasSize(4);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertInvariants(model);
  }

  @Test
  void aMetadataFileWriteFailingPastTheSdkIsRetriedByTheDefinitionAndCommitsOnce() {
    Table table = createTable(SHAPE);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    // only a commit writes a metadata file; every attempt of the first one fails
    faults.inject(
        S3FaultRule.of(S3Fault.internalError())
            .onMethod("PUT")
            .onKeys("\\.metadata\\.json$")
            .times(SDK_ATTEMPTS));

    ExecutionResult result = run(input(faultyCatalog()));

    // before the fix the first CommitSnapshot failed the job with the SDK's S3Exception
    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(COMMIT_SNAPSHOT)).isEqualTo(2);
    assertThat(faults.injected()).hasSize(SDK_ATTEMPTS);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertInvariants(model);
  }

  @Test
  void aMetadataFileWriteThatLandsButWhoseAnswerIsLostCommitsOnceOnAV3Table() {
    Table table = createTable(V3);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    faults.inject(
        S3FaultRule.of(S3Fault.resetMidResponse())
            .onMethod("PUT")
            .onKeys("\\.metadata\\.json$")
            .times(1));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(faults.injected()).hasSize(1);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertInvariants(model);
  }

  @Test
  void
      aMetadataFileWriteFailingPastTheSdkUnderTheDynamoDbCatalogIsRetriedAndCommitsOnceOnAV3Table() {
    Map<String, String> direct = dynamoDbCatalog();
    access = new TableAccess(direct);
    Table table = FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), V3);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Map<String, String> catalog = new TreeMap<>(direct);
    catalog.putAll(faults.icebergProperties());
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown())
            .onMethod("PUT")
            .onKeys("\\.metadata\\.json$")
            .times(SDK_ATTEMPTS));

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(COMMIT_SNAPSHOT)).isEqualTo(2);
    assertThat(faults.injected()).hasSize(SDK_ATTEMPTS);
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertInvariants(model);
  }

  @Test
  void aMetadataFileThatCannotBeWrittenFailsTheJobWithTheTableUntouchedAndARecommitFinishesIt() {
    Table table = createTable(SHAPE);
    Map<String, Long> model = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Map<String, String> catalog = faultyCatalog();
    faultsDuring(
        COMMIT_SNAPSHOT,
        new CommitSnapshotHandler(leaseSteps.lease()),
        S3FaultRule.of(S3Fault.internalError()).onMethod("PUT").onKeys("\\.metadata\\.json$"));

    ExecutionResult result = run(input(catalog));

    assertFailedWith(result, "CommitSnapshot", TransientException.class, "Cannot commit job ");
    assertThat(lambda.invocations(COMMIT_SNAPSHOT)).isEqualTo(STEP_ATTEMPTS);
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    // the workers' outputs are named by their stored group results, for a re-commit (the
    // invariants)
    assertInvariants(model);

    lambda.register(COMMIT_SNAPSHOT, new CommitSnapshotHandler(leaseSteps.lease()));
    Map<String, Object> recommit = input(catalog);
    recommit.put("job_id", jobId());
    recommit.put("recommit", true);
    ExecutionResult recommitted = run(recommit);

    assertThat(recommitted.status()).isEqualTo("SUCCEEDED");
    assertJobStatus(recommitted.outputJson(), "COMMITTED");
    assertThat(newSnapshots(table, snapshotsBefore)).hasSize(1);
    assertInvariants(model);
  }

  @Test
  void
      aDeletionVectorCommittedWhileWorkersRunConflictsItsGroupAndAnOutputThatCannotBeDeletedIsListed() {
    createTable(V3);
    AtomicReference<Map<String, Long>> model = new AtomicReference<>();
    afterGroupZero(() -> deleteRowZeroOfAFileOfDay(1), model);
    faultsDuring(
        COMMIT_SNAPSHOT,
        new CommitSnapshotHandler(leaseSteps.lease()),
        S3FaultRule.of(S3Fault.slowDown()).onMethod("PUT").onKeys("/metadata/").times(3),
        S3FaultRule.of(S3Fault.internalError()).onMethod("DELETE").onKeys("/data/"));

    ExecutionResult result = run(input(faultyCatalog()));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("conflicted_groups").asInt()).isEqualTo(1);
    JobResult whole = assertInvariants(model.get()).orElseThrow();
    GroupOutcome conflicted = onlyGroupNot("REWRITTEN", Optional.of(whole));
    assertThat(conflicted.status()).isEqualTo(GroupOutcome.Status.CONFLICTED);
    // before the fix a failed delete was only logged: the file stayed, in no snapshot and no result
    assertThat(whole.verification().verified()).isFalse();
    assertThat(whole.verification().problems())
        .singleElement()
        .asString()
        .startsWith("group " + conflicted.groupIndex() + " was not committed and its output s3://")
        .contains(String.format("/%05d-1-%s-", conflicted.groupIndex(), whole.jobId()))
        .contains("could not be deleted (S3Exception: We encountered an internal error")
        .endsWith("remove-orphans deletes it");
    assertThat(faults.injected()).extracting(InjectedFault::method).contains("PUT", "DELETE");
  }

  // ---- helpers ----

  /** The catalog the execution gets: the test's JDBC catalog, with S3 through the fault proxy. */
  private Map<String, String> faultyCatalog() {
    return faultyJdbcCatalog();
  }

  /** The fragmented table of {@code shape}, created through the direct (fault-free) catalog. */
  private Table createTable(FragmentedTable.Shape shape) {
    access = new TableAccess(jdbcCatalog());
    return FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape);
  }

  /**
   * {@code function}'s real handler, with {@code rules} in force only while it runs (added afresh
   * for each invocation, so a rule's {@code times} counts within one invocation).
   */
  private static void faultsDuring(
      String function, RequestStreamHandler real, S3FaultRule... rules) {
    lambda.register(
        function,
        (in, out, context) -> {
          for (S3FaultRule rule : rules) {
            faults.inject(rule);
          }
          try {
            real.handleRequest(in, out, context);
          } finally {
            for (S3FaultRule rule : rules) {
              faults.remove(rule);
            }
          }
        });
  }

  /**
   * {@code rules} in force from the end of planning to the start of the commit: while the workers
   * run (and their failures are recorded). The rules are added once, so {@code times} counts over
   * all workers.
   */
  private void faultsDuringRewriteStage(S3FaultRule... rules) {
    PlanRewriteHandler plan = new PlanRewriteHandler();
    lambda.register(
        PLAN_REWRITE,
        (in, out, context) -> {
          plan.handleRequest(in, out, context);
          for (S3FaultRule rule : rules) {
            faults.inject(rule);
          }
        });
    CommitSnapshotHandler commit = new CommitSnapshotHandler(leaseSteps.lease());
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          faults.clearRules();
          commit.handleRequest(in, out, context);
        });
  }

  /**
   * Once group 0's worker has finished, {@code writer} commits as another writer; its rows become
   * the model.
   */
  private void afterGroupZero(
      Supplier<Map<String, Long>> writer, AtomicReference<Map<String, Long>> model) {
    RewriteGroupHandler real = rewriteGroupHandler();
    AtomicBoolean once = new AtomicBoolean(true);
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          byte[] payload = in.readAllBytes();
          real.handleRequest(new ByteArrayInputStream(payload), out, context);
          JsonNode group = tree(new String(payload, StandardCharsets.UTF_8)).get("group");
          if (group.get("group_index").asInt() == 0 && once.compareAndSet(true, false)) {
            model.set(writer.get());
          }
        });
  }

  /** The {@code day}-th day partition of the table, in order. */
  private static String partitionOfDay(Table table, int day) {
    return liveTasks(table).stream()
        .map(t -> partitionOf(table, t))
        .distinct()
        .sorted()
        .toList()
        .get(day);
  }

  /**
   * As another writer: deletes row 0 of a file without deletes in the {@code day}-th day partition.
   */
  private Map<String, Long> deleteRowZeroOfAFileOfDay(int day) {
    Table writer = table();
    List<FileScanTask> tasks = liveTasks(writer);
    String partition = partitionOfDay(writer, day);
    DataFile target =
        tasks.stream()
            .filter(t -> partitionOf(writer, t).equals(partition))
            .filter(
                t ->
                    t.deletes().stream()
                        .noneMatch(d -> d.content() == FileContent.POSITION_DELETES))
            .map(t -> (DataFile) t.file())
            .findFirst()
            .orElseThrow();
    writer.newRowDelta().addDeletes(FragmentedTable.positionDelete(writer, target, 0)).commit();
    return LiveRows.multiset(writer);
  }

  private static String jobId() {
    return payloads(PLAN_REWRITE).get(0).get("job").get("job_id").asText();
  }

  /**
   * {@link CompactionInvariants} for this test's job, and the lease released; the job's stored
   * result.
   */
  private Optional<JobResult> assertInvariants(Map<String, Long> model) {
    Optional<JobResult> result =
        new CompactionInvariants(table(), s3.client(), bucket).assertHold(jobId(), model);
    assertThat(leaseItem()).as("the lease after the execution").containsKey("released_at");
    List<JobLogEntry> log = jobLog();
    assertThat(log).isNotEmpty();
    assertThat(log.get(0).status()).isEqualTo(result.map(r -> r.status().name()).orElse("FAILED"));
    return result;
  }

  private static void assertFailedWith(
      ExecutionResult result,
      String failedState,
      Class<? extends Throwable> error,
      String messageStart) {
    assertThat(result.status())
        .as("execution: %s %s", result.status(), result.cause())
        .isEqualTo("FAILED");
    assertThat(result.states())
        .containsSubsequence(failedState, "ReleaseLeaseAfterFailure", "JobFailed");
    assertThat(result.error()).isEqualTo(error.getName());
    assertThat(tree(result.cause()).get("errorMessage").asText()).startsWith(messageStart);
  }

  private static GroupOutcome onlyGroupNot(String status, Optional<JobResult> result) {
    List<GroupOutcome> others = new ArrayList<>();
    result
        .orElseThrow()
        .groups()
        .forEach(
            g -> {
              if (!g.status().name().equals(status)) {
                others.add(g);
              }
            });
    assertThat(others).hasSize(1);
    return others.get(0);
  }
}
