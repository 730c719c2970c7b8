package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.CARE_FOR_TABLE;
import static io.icecompact.statemachine.CompactionDefinition.COMMIT_SNAPSHOT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.committer.lambda.CommitSnapshotHandler;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.lease.LeaseTableSchema;
import io.icecompact.testkit.EveryTableReaches;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotFoundException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Care steps in the compaction state machine on the local stand-ins: after the job commits, {@code
 * CareForTable} runs the real handler on a v2 table with partition-scoped position deletes,
 * equality deletes, a history of snapshots and an orphan, and what each step removed is read back
 * from the table's metadata and from storage.
 */
class StateMachineCareTest extends StateMachineTestBase {
  private static final List<String> ALL_STEPS =
      List.of("remove-orphans", "expire-snapshots", "rewrite-manifests", "delete-cleanup");
  private static final List<String> CARED_PATH =
      List.of(
          "AcquireLease",
          "LeaseAcquired?",
          "PlanRewrite",
          "AnythingToDo?",
          "RewriteFileGroups",
          "CommitSnapshot",
          "CareRequested?",
          "CareForTable",
          "ReleaseLease",
          "Done");

  /**
   * 4 day partitions of 5 files of 300 rows, v2, no deletes of its own: the test adds
   * partition-scoped ones.
   */
  private static final FragmentedTable.Shape CDC =
      new FragmentedTable.Shape(4, 5, 300, 2, 0, 0, true);

  @Test
  void everyStepRunsAfterTheCommitAndRemovesOnlyWhatNothingReaches() throws IOException {
    Map<String, String> catalog = jdbcCatalog();
    access = new TableAccess(catalog);
    Table table = FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), CDC);
    FragmentedTable.addPartitionScopedDeletes(table);
    // every snapshot but the current is past its age: expiry keeps min-snapshots-to-keep (1)
    table.updateProperties().set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1").commit();
    table = table();
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    List<String> replacedFiles =
        liveTasks(table).stream().map(task -> task.file().location()).toList();
    int snapshotsBefore = snapshots(table).size();
    String youngOrphan =
        table.location()
            + "/data/ordered_at_day=2026-06-01/written-by-a-writer-not-yet-committed.parquet";
    write(youngOrphan);

    Map<String, Object> input = input(catalog);
    input.put("options", Map.of("rewrite-all", "true"));
    input.put("care", ALL_STEPS);
    ExecutionResult result = run(input);

    assertSucceeded(result, CARED_PATH);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    JsonNode care = output.get("care");
    assertThat(care.get("failed").asInt()).as("%s", care).isZero();
    List<String> steps = new ArrayList<>();
    care.get("steps")
        .forEach(
            step -> {
              steps.add(step.get("step").asText());
              assertThat(step.get("status").asText()).as("%s", step).isEqualTo("DONE");
            });
    assertThat(steps)
        .as("the fixed order")
        .containsExactly(
            "delete-cleanup", "rewrite-manifests", "expire-snapshots", "remove-orphans");

    table = table();
    assertThat(LiveRows.multiset(table)).as("live rows").isEqualTo(rowsBefore);
    // delete cleanup: the rewrite applied every delete; none of the 8 delete files is left listed
    assertThat(liveTasks(table)).allSatisfy(task -> assertThat(task.deletes()).isEmpty());
    assertThat(deleteManifestEntries(table)).isZero();
    // expiry: only the current snapshot is left, and the replaced data files are gone from storage
    assertThat(snapshotsBefore).isGreaterThan(3);
    assertThat(snapshots(table)).hasSize(1);
    assertThat(replacedFiles)
        .allSatisfy(location -> assertThat(exists(location)).as(location).isFalse());
    assertThat(liveTasks(table))
        .allSatisfy(task -> assertThat(exists(task.file().location())).isTrue());
    // orphans: the young one survives (a writer's commit may still be in flight)
    assertThat(exists(youngOrphan)).isTrue();
    assertNothingReachedIsGone();

    JsonNode reports = JSON.readTree(read(care.get("location").asText()));
    Map<String, JsonNode> byStep = new LinkedHashMap<>();
    reports.forEach(outcome -> byStep.put(outcome.get("step").asText(), outcome.get("report")));
    assertThat(byStep.get("delete-cleanup").get("delete_files_before").asInt()).isEqualTo(8);
    assertThat(byStep.get("delete-cleanup").get("delete_files_after").asInt()).isZero();
    assertThat(byStep.get("delete-cleanup").get("kept_may_apply").asInt()).isZero();
    assertThat(byStep.get("expire-snapshots").get("snapshots_after").asInt()).isEqualTo(1);
    assertThat(byStep.get("expire-snapshots").get("files_deleted").get("count").asInt())
        .isGreaterThanOrEqualTo(replacedFiles.size());
    assertThat(byStep.get("remove-orphans").get("young_orphans_kept").asInt())
        .isGreaterThanOrEqualTo(1);
    assertThat(byStep.get("remove-orphans").get("orphans_deleted").get("count").asInt()).isZero();
    System.err.printf("care in the state machine: %s%n", care);
  }

  @Test
  void withoutCareInTheInputNoStepRunsAndTheOutputSaysSo() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    int snapshotsBefore = snapshots(table).size();

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(result.outputJson().get("care").get("steps")).isEmpty();
    assertThat(lambda.invocations(CARE_FOR_TABLE)).isZero();
    assertThat(snapshots(table)).hasSize(snapshotsBefore + 1);
    assertNothingReachedIsGone();
  }

  /**
   * The lease is lost after the commit (another execution took the table over): no step runs, each
   * is reported as not run with the lease error, the job's commit stands, and the execution still
   * ends with the job's result.
   */
  @Test
  void aLostLeaseStopsEveryStepAndEachIsReportedNotRun() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    table.updateProperties().set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1").commit();
    int snapshotsBefore = snapshots(table).size();
    CommitSnapshotHandler commit = new CommitSnapshotHandler(leaseSteps.lease());
    lambda.register(
        COMMIT_SNAPSHOT,
        (in, out, context) -> {
          commit.handleRequest(in, out, context);
          // another execution takes the table over right after the commit
          dynamo
              .client()
              .updateItem(
                  b ->
                      b.tableName(leaseTable)
                          .key(
                              Map.of(
                                  LeaseTableSchema.PK,
                                  AttributeValue.fromS(TABLE),
                                  LeaseTableSchema.SK,
                                  AttributeValue.fromS("lease")))
                          .updateExpression("SET #owner = :other")
                          .expressionAttributeNames(Map.of("#owner", "owner"))
                          .expressionAttributeValues(
                              Map.of(":other", AttributeValue.fromS("arn:another-execution"))));
        });

    Map<String, Object> input = input(catalog);
    input.put("care", List.of("expire-snapshots"));
    ExecutionResult result = run(input);

    assertSucceeded(result, CARED_PATH);
    JsonNode care = result.outputJson().get("care");
    assertThat(care.get("failed").asInt()).isEqualTo(1);
    assertThat(care.get("steps").get(0).get("status").asText()).isEqualTo("NOT_RUN");
    assertThat(care.get("steps").get(0).get("summary").asText())
        .contains("LeaseLostException", "held by arn:another-execution");
    assertJobStatus(result.outputJson(), "COMMITTED");
    assertThat(snapshots(table)).as("nothing expired").hasSize(snapshotsBefore + 1);
    assertNothingReachedIsGone();
  }

  /**
   * Issue 41: a care step that refuses (here gc.enabled=false) after a commit that succeeded used
   * to leave nothing but a green job; the real definition carries the step's outcome to
   * ReleaseLease, which keeps why in the job log (what {@code history} prints) beside the job's
   * COMMITTED status.
   */
  @Test
  void aRefusedCareStepIsKeptWithItsReasonInTheJobLog() {
    Map<String, String> catalog = jdbcCatalog();
    Table table = createTable(catalog);
    table.updateProperties().set(TableProperties.GC_ENABLED, "false").commit();
    int snapshotsBefore = snapshots(table).size();
    Map<String, Object> input = input(catalog);
    input.put("care", List.of("expire-snapshots"));

    ExecutionResult result = run(input);

    assertSucceeded(result, CARED_PATH);
    assertJobStatus(result.outputJson(), "COMMITTED");
    JsonNode care = result.outputJson().get("care");
    assertThat(care.get("steps").get(0).get("status").asText()).isEqualTo("REFUSED");
    String jobId = result.outputJson().get("job_id").asText();
    var entry = leaseSteps.jobLog().find(TABLE, jobId).orElseThrow();
    assertThat(entry.status()).isEqualTo("COMMITTED");
    assertThat(entry.care()).startsWith("expire-snapshots REFUSED: ").contains("gc.enabled");
    assertThat(snapshots(table)).as("nothing expired").hasSize(snapshotsBefore + 1);
  }

  /**
   * Issue 24's promise, checked apart from the care code: every file any table of the catalog
   * reaches is there.
   */
  private void assertNothingReachedIsGone() {
    assertThat(EveryTableReaches.missingFiles(access.catalog()))
        .as("files some table reaches that are gone")
        .isEmpty();
  }

  private long deleteManifestEntries(Table table) {
    long entries = 0;
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      entries += manifest.addedFilesCount() + manifest.existingFilesCount();
    }
    return entries;
  }

  private boolean exists(String location) {
    try {
      return access.fileIO().newInputFile(location).exists();
    } catch (NotFoundException e) {
      return false;
    }
  }

  private void write(String location) {
    try (OutputStream out = access.fileIO().newOutputFile(location).create()) {
      out.write(new byte[] {'P', 'A', 'R', '1'});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private byte[] read(String location) {
    try (InputStream in = access.fileIO().newInputFile(location).newStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
