package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanRef;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 5 and 6: another writer commits a position delete while the workers run; the committer
 * runs twice for one job.
 */
class StateMachineConcurrencyTest extends StateMachineTestBase {

  /** What the concurrent writer did. */
  private record ConcurrentDelete(
      String dataFile, DeleteFile deleteFile, long snapshotId, Map<String, Long> rows) {}

  @Test
  void aPositionDeleteCommittedWhileWorkersRunConflictsOnlyItsGroupAndSurvives() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    // Once group 0's worker has finished, another writer deletes row 0 of a file of group 1.
    int finished = 0;
    int conflicted = 1;
    RewriteGroupHandler real = rewriteGroupHandler();
    AtomicBoolean once = new AtomicBoolean(true);
    AtomicReference<ConcurrentDelete> delete = new AtomicReference<>();
    lambda.register(
        REWRITE_GROUP,
        (in, out, context) -> {
          byte[] payload = in.readAllBytes();
          real.handleRequest(new ByteArrayInputStream(payload), out, context);
          JsonNode group = tree(new String(payload, StandardCharsets.UTF_8)).get("group");
          if (group.get("group_index").asInt() == finished && once.compareAndSet(true, false)) {
            delete.set(deleteRowZeroOfAFileOf(group, conflicted));
          }
        });

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    ConcurrentDelete concurrent = delete.get();
    assertThat(concurrent).isNotNull();
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS - 1);
    assertThat(output.get("conflicted_groups").asInt()).isEqualTo(1);
    assertThat(output.get("failed_groups").asInt()).isZero();
    assertThat(output.get("snapshot_ids")).hasSize(1);
    long replaceId = output.get("snapshot_ids").get(0).asLong();
    wholeResult(output)
        .get("groups")
        .forEach(
            g -> {
              if (g.get("group_index").asInt() == conflicted) {
                assertJobStatus(g, "CONFLICTED");
                assertThat(g.get("reason").asText()).isNotBlank();
                assertThat(g.has("snapshot_id")).isFalse();
              } else {
                assertJobStatus(g, "REWRITTEN");
                assertThat(g.get("snapshot_id").asLong()).isEqualTo(replaceId);
              }
            });

    // the writer's snapshot, then the job's one replace snapshot on top of it
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(2);
    assertThat(added.get(0).snapshotId()).isEqualTo(concurrent.snapshotId());
    assertThat(added.get(0).operation()).isEqualTo(DataOperations.DELETE);
    assertReplaceStampedWith(added.get(1), jobId);
    assertThat(added.get(1).snapshotId()).isEqualTo(replaceId);
    assertThat(added.get(1).summary())
        .containsEntry("deleted-data-files", Integer.toString(INPUT_FILES - 5));

    // the delete survives: the data file it points at is still live, with the delete applied
    FileScanTask target =
        liveTasks(table).stream()
            .filter(t -> t.file().location().equals(concurrent.dataFile()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the deleted-from file is no longer live"));
    assertThat(target.deletes())
        .extracting(DeleteFile::location)
        .contains(concurrent.deleteFile().location());
    assertThat(LiveRows.count(concurrent.rows())).isEqualTo(LiveRows.count(rowsBefore) - 1);
    assertThat(LiveRows.multiset(table)).isEqualTo(concurrent.rows());

    assertInvocations(1, 1, GROUPS, 0, 1, 1);
    List<JobLogEntry> log = jobLog();
    assertThat(log).hasSize(1);
    assertThat(log.get(0).status()).isEqualTo("PARTIAL");
    assertThat(log.get(0).snapshotIds()).containsExactly(replaceId);
  }

  /** Commits, as another writer, a position delete of row 0 of a file of {@code groupIndex}. */
  private ConcurrentDelete deleteRowZeroOfAFileOf(JsonNode request, int groupIndex) {
    JobStore store = new JobStore(access.fileIO());
    PlanRef ref = JobJson.mapper().convertValue(request.get("plan_ref"), PlanRef.class);
    JobPlan plan = store.readPlan(ref.jobId(), ref.planLocation(), ref.planSha256());
    List<FileScanTask> tasks = store.readGroupTasks(ref.work(), plan, groupIndex);
    // a file without position deletes, so that its row 0 is live
    DataFile target =
        tasks.stream()
            .filter(
                t ->
                    t.deletes().stream()
                        .noneMatch(d -> d.content() == FileContent.POSITION_DELETES))
            .map(t -> (DataFile) t.file())
            .findFirst()
            .orElseThrow();
    Table writer = table();
    DeleteFile deleteFile = FragmentedTable.positionDelete(writer, target, 0);
    writer.newRowDelta().addDeletes(deleteFile).commit();
    return new ConcurrentDelete(
        target.location(),
        deleteFile,
        writer.currentSnapshot().snapshotId(),
        LiveRows.multiset(writer));
  }

  @Test
  void aCommitterRetriedAfterItsAnswerWasLostReturnsTheCommittedResultWithoutASecondSnapshot() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    // The first invocation commits, then "times out": its answer never reaches the state machine.
    CommitSnapshotHandler real = new CommitSnapshotHandler(leaseSteps.lease());
    AtomicInteger calls = new AtomicInteger();
    AtomicReference<String> lostAnswer = new AtomicReference<>();
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          if (calls.incrementAndGet() == 1) {
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            real.handleRequest(in, answer, context);
            lostAnswer.set(answer.toString(StandardCharsets.UTF_8));
            throw new TransientException(
                "injected: the committer's answer was lost (Lambda timed out)", null);
          }
          real.handleRequest(in, out, context);
        });

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(lostAnswer.get()).isNotNull();
    JsonNode committed = tree(lostAnswer.get());
    JsonNode output = result.outputJson();
    // the execution's output is the committer's answer, plus what the care states add (none listed
    // here)
    assertThat((JsonNode) ((ObjectNode) output.deepCopy()).without("care")).isEqualTo(committed);
    assertThat(output.get("care").get("steps")).isEmpty();
    assertJobStatus(output, "COMMITTED");
    String jobId = output.get("job_id").asText();
    assertThat(output.get("snapshot_ids")).hasSize(1);
    long snapshotId = output.get("snapshot_ids").get(0).asLong();

    assertInvocations(1, 1, GROUPS, 0, 2, 1);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(added.get(0).snapshotId()).isEqualTo(snapshotId);
    List<Snapshot> stamped = new ArrayList<>();
    snapshots(table)
        .forEach(
            s -> {
              if (jobId.equals(s.summary().get("icecompact.job-id"))) {
                stamped.add(s);
              }
            });
    assertThat(stamped).hasSize(1);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    List<JobLogEntry> log = jobLog();
    assertThat(log).hasSize(1);
    assertThat(log.get(0).status()).isEqualTo("COMMITTED");
    assertThat(log.get(0).snapshotIds()).containsExactly(snapshotId);
  }
}
