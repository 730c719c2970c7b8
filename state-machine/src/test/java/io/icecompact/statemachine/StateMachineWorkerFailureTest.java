package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.RECORD_GROUP_FAILURE;
import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Scenarios 2 and 3: a worker that fails transiently is retried; one that finds a corrupt file is
 * not.
 */
class StateMachineWorkerFailureTest extends StateMachineTestBase {

  @Test
  void aWorkerThatFailsTransientlyIsRetriedWithANewAttemptNumberAndTheJobCommitsEverything() {
    Table table = createTable(jdbcCatalog());
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    Map<String, String> catalog = faultyJdbcCatalog();

    // S3 throttles every attempt of the PUT of group 1's first output in its attempt 1 (the SDK's
    // 6), so
    // the worker claims attempt 1 (a marker in the work location), fails with TransientException,
    // which
    // the RewriteGroup state's Retry matches, and attempt 2 writes it.
    int flaky = 1;
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown())
            .onMethod("PUT")
            .onKeys(String.format("/data/.*/%05d-1-", flaky))
            .times(6));
    RewriteGroupHandler real = rewriteGroupHandler();
    List<Throwable> thrown = new CopyOnWriteArrayList<>();
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

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "COMMITTED");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS);
    assertThat(output.get("failed_groups").asInt()).isZero();

    // the worker's own failure was transient, and it was retried once
    assertThat(thrown).hasSize(1);
    assertThat(thrown.get(0)).isExactlyInstanceOf(TransientException.class);
    assertThat(thrown.get(0).getMessage())
        // S3FileIO uploads a small file when it is closed
        .containsPattern("^Cannot finish output files?: ")
        .contains("Please reduce your request rate");
    assertThat(faults.injected())
        .hasSize(6)
        .allSatisfy(
            fault -> assertThat(fault.key()).contains(String.format("/%05d-1-%s-", flaky, jobId)));
    assertInvocations(1, 1, GROUPS + 1, 0, 1, 1);
    Map<Integer, Integer> expectedCalls = new TreeMap<>(Map.of(0, 1, 1, 2, 2, 1, 3, 1));
    assertThat(rewriteInvocationsByGroup()).isEqualTo(expectedCalls);

    // the retry was attempt 2: its marker, its stored result and its file names say so
    WorkLocation work = committedWork();
    JobStore store = new JobStore(access.fileIO());
    List<String> markers =
        StreamSupport.stream(
                ((SupportsPrefixOperations) access.fileIO())
                    .listPrefix(work.jobDirectory() + "/attempts/")
                    .spliterator(),
                false)
            .map(FileInfo::location)
            .map(StateMachineTestBase::fileName)
            .sorted()
            .toList();
    assertThat(markers)
        .containsExactly(
            "group-00000.attempt-1",
            "group-00001.attempt-1",
            "group-00001.attempt-2",
            "group-00002.attempt-1",
            "group-00003.attempt-1");
    for (int g = 0; g < GROUPS; g++) {
      int group = g;
      GroupResult stored = store.readGroupResult(work, group).orElseThrow();
      int attempt = group == flaky ? 2 : 1;
      assertThat(stored.attempt()).as("attempt of group %d", group).isEqualTo(attempt);
      assertThat(stored.outputFiles())
          .isNotEmpty()
          .allSatisfy(
              file ->
                  assertThat(fileName(file.get("file-path").asText()))
                      .startsWith(String.format("%05d-%d-%s-", group, attempt, jobId)));
    }

    // one replace snapshot whose new files are those of the stored results: group 1's from attempt
    // 2
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    List<String> addedFiles = new ArrayList<>();
    added
        .get(0)
        .addedDataFiles(table.io())
        .forEach(file -> addedFiles.add(fileName(file.location())));
    assertThat(addedFiles)
        .hasSize(GROUPS)
        .anySatisfy(name -> assertThat(name).startsWith(String.format("%05d-2-%s-", flaky, jobId)))
        .noneSatisfy(
            name -> assertThat(name).startsWith(String.format("%05d-1-%s-", flaky, jobId)));
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertThat(jobLog()).extracting(JobLogEntry::status).containsExactly("COMMITTED");
  }

  @Test
  void aGroupWithACorruptInputFileIsNotRetriedAndTheOtherGroupsCommit() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();

    // a data file with position deletes, overwritten on S3 with garbage of the same length
    FileScanTask victim =
        liveTasks(table).stream()
            .filter(
                t ->
                    t.deletes().stream().anyMatch(d -> d.content() == FileContent.POSITION_DELETES))
            .findFirst()
            .orElseThrow();
    String corrupt = victim.file().location();
    String partition = partitionOf(table, victim);
    String key = corrupt.substring(("s3://" + bucket + "/").length());
    byte[] original = s3.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    byte[] garbage = new byte[original.length];
    new Random(1).nextBytes(garbage);
    s3.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(garbage));

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    JsonNode output = result.outputJson();
    String jobId = output.get("job_id").asText();
    assertJobStatus(output, "PARTIAL");
    assertThat(output.get("rewritten_groups").asInt()).isEqualTo(GROUPS - 1);
    assertThat(output.get("failed_groups").asInt()).isEqualTo(1);
    assertThat(output.get("failed_data_files_count").asInt()).isEqualTo(5);
    assertThat(output.get("rewritten_data_files_count").asInt()).isEqualTo(INPUT_FILES - 5);
    List<JsonNode> failed = new ArrayList<>();
    wholeResult(output)
        .get("groups")
        .forEach(
            g -> {
              if (!g.get("status").asText().equals("REWRITTEN")) {
                failed.add(g);
              }
            });
    assertThat(failed).hasSize(1);
    JsonNode failedGroup = failed.get(0);
    int failedIndex = failedGroup.get("group_index").asInt();
    assertJobStatus(failedGroup, "FAILED");
    assertThat(failedGroup.get("partition").asText()).isEqualTo(partition);
    assertThat(failedGroup.get("reason").asText())
        .startsWith(
            CorruptInputFileException.class.getSimpleName()
                + ": Cannot rewrite data file "
                + corrupt
                + ": ");
    assertThat(output.get("reason").asText())
        .contains("group " + failedIndex)
        .contains("CorruptInputFileException");

    // not retried: one RewriteGroup invocation per group, and one RecordGroupFailure for the
    // corrupt one
    assertInvocations(1, 1, GROUPS, 1, 1, 1);
    assertThat(rewriteInvocationsByGroup())
        .hasSize(GROUPS)
        .allSatisfy((g, calls) -> assertThat(calls).isEqualTo(1));
    JsonNode recorded = payloads(RECORD_GROUP_FAILURE).get(0);
    assertThat(recorded.get("group").get("group_index").asInt()).isEqualTo(failedIndex);
    assertThat(recorded.get("error").get("Error").asText())
        .isEqualTo(CorruptInputFileException.class.getName());
    assertThat(tree(recorded.get("error").get("Cause").asText()).get("errorType").asText())
        .isEqualTo(CorruptInputFileException.class.getName());
    WorkLocation work = committedWork();
    GroupFailure stored =
        new JobStore(access.fileIO()).readGroupFailure(work, failedIndex).orElseThrow();
    assertThat(stored.errorType()).isEqualTo(CorruptInputFileException.class.getSimpleName());
    assertThat(stored.message()).startsWith("Cannot rewrite data file " + corrupt + ": ");

    // one replace snapshot of the other groups; the corrupt group's five files are still live
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(added.get(0).snapshotId()).isEqualTo(output.get("snapshot_ids").get(0).asLong());
    Map<String, Long> filesPerPartition = new TreeMap<>();
    liveTasks(table).forEach(t -> filesPerPartition.merge(partitionOf(table, t), 1L, Long::sum));
    assertThat(filesPerPartition).hasSize(GROUPS).containsEntry(partition, 5L);
    filesPerPartition.forEach(
        (p, files) -> assertThat(files).isEqualTo(p.equals(partition) ? 5L : 1L));
    assertThat(liveTasks(table).stream().map(FileScanTask::file).map(DataFile::location))
        .contains(corrupt);

    List<JobLogEntry> log = jobLog();
    assertThat(log).hasSize(1);
    assertThat(log.get(0).status()).isEqualTo("PARTIAL");
    assertThat(log.get(0).error()).isEqualTo(output.get("reason").asText());

    // with the file's bytes back, the table holds exactly the rows it held before
    s3.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(original));
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
  }
}
