package io.icecompact.statemachine;

import static io.icecompact.statemachine.CompactionDefinition.REWRITE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.CommitFaultCatalog;
import io.icecompact.testkit.CommitFaultCatalog.Fault;
import io.icecompact.testkit.LocalStateMachine.ExecutionResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The catalog fails the committer's commit on the real definition, with Iceberg's JDBC catalog and
 * its DynamoDbCatalog (on local DynamoDB), on v2 and v3 tables: once after writing the new metadata
 * (the commit landed, its answer was lost) and once before (nothing landed, and the committer
 * cannot know). In both the table keeps every live row and every file any snapshot references; a
 * landed commit is found by its stamp and reported COMMITTED; one that did not land is reported
 * UNKNOWN with the job's output kept, and a re-commit execution commits it exactly once.
 */
class StateMachineCommitUnknownTest extends StateMachineTestBase {
  private String warehouse;

  static Stream<Arguments> catalogsAndVersions() {
    return Stream.of(
        Arguments.of("jdbc", 2),
        Arguments.of("jdbc", 3),
        Arguments.of("dynamodb", 2),
        Arguments.of("dynamodb", 3));
  }

  @AfterEach
  void forgetFaults() {
    if (warehouse != null) {
      CommitFaultCatalog.reset(warehouse);
    }
  }

  /**
   * The table, created through the plain catalog; the functions reach it through the faulty one.
   */
  private Map<String, String> faultyCatalogOfANewTable(String kind, int formatVersion) {
    Map<String, String> plain = "jdbc".equals(kind) ? jdbcCatalog() : dynamoDbCatalog();
    try (TableAccess creator = new TableAccess(plain)) {
      FragmentedTable.Shape shape =
          new FragmentedTable.Shape(4, 5, 300, formatVersion, 2, 10, true);
      FragmentedTable.create(creator.catalog(), TableIdentifier.parse(TABLE), shape);
    }
    Map<String, String> catalog = CommitFaultCatalog.wrap(plain);
    warehouse = catalog.get("warehouse");
    CommitFaultCatalog.reset(warehouse);
    access = new TableAccess(plain);
    return catalog;
  }

  /** Two of the four: finding a landed commit by its stamp reads the same snapshot log in each. */
  static Stream<Arguments> twoCatalogsAndVersions() {
    return Stream.of(Arguments.of("jdbc", 3), Arguments.of("dynamodb", 2));
  }

  @ParameterizedTest(name = "{0} catalog, v{1}")
  @MethodSource("twoCatalogsAndVersions")
  void aCommitThatLandedButLostItsAnswerIsFoundByItsStampAndReportedCommitted(
      String kind, int version) {
    Map<String, String> catalog = faultyCatalogOfANewTable(kind, version);
    Table table = table();
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    CommitFaultCatalog.arm(warehouse, Fault.LANDED_ANSWER_LOST);

    ExecutionResult result = run(input(catalog));

    assertSucceeded(result, COMPACTED_PATH);
    assertThat(CommitFaultCatalog.fired(warehouse)).isEqualTo(1);
    JsonNode output = result.outputJson();
    assertJobStatus(output, "COMMITTED");
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).as("one snapshot, committed once").hasSize(1);
    assertReplaceStampedWith(added.get(0), output.get("job_id").asText());
    assertThat(output.get("snapshot_ids").get(0).asText())
        .isEqualTo(Long.toString(added.get(0).snapshotId()));
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertEverySnapshotsFilesExist(table);
    assertThat(jobLog().get(0).status()).isEqualTo("COMMITTED");
    assertThat(leaseItem()).containsKey("released_at");
  }

  @ParameterizedTest(name = "{0} catalog, v{1}")
  @MethodSource("catalogsAndVersions")
  void aCommitThatDidNotLandIsUnknownKeepsEveryFileAndARecommitCommitsItOnce(
      String kind, int version) {
    Map<String, String> catalog = faultyCatalogOfANewTable(kind, version);
    Table table = table();
    Map<String, Long> rowsBefore = LiveRows.multiset(table);
    int snapshotsBefore = snapshots(table).size();
    CommitFaultCatalog.arm(warehouse, Fault.DID_NOT_LAND);

    ExecutionResult unknown = run(input(catalog));

    assertSucceeded(unknown, COMPACTED_PATH);
    assertThat(CommitFaultCatalog.fired(warehouse)).isEqualTo(1);
    JsonNode output = unknown.outputJson();
    assertJobStatus(output, "UNKNOWN");
    String jobId = output.get("job_id").asText();
    assertThat(snapshots(table)).hasSize(snapshotsBefore);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertEverySnapshotsFilesExist(table);
    List<String> outputs = jobOutputs(jobId);
    assertThat(outputs).as("the job's output files, which may be live, are all kept").isNotEmpty();
    assertThat(jobLog().get(0).status()).isEqualTo("UNKNOWN");
    assertThat(leaseItem()).containsKey("released_at");

    int rewrites = lambda.invocations(REWRITE_GROUP);
    Map<String, Object> recommit = input(catalog);
    recommit.put("job_id", jobId);
    recommit.put("recommit", true);
    ExecutionResult committed = run(recommit);

    assertThat(committed.status())
        .as("%s %s", committed.error(), committed.cause())
        .isEqualTo("SUCCEEDED");
    assertJobStatus(committed.outputJson(), "COMMITTED");
    assertThat(lambda.invocations(REWRITE_GROUP)).as("nothing rewritten again").isEqualTo(rewrites);
    List<Snapshot> added = newSnapshots(table, snapshotsBefore);
    assertThat(added).hasSize(1);
    assertReplaceStampedWith(added.get(0), jobId);
    assertThat(LiveRows.multiset(table)).isEqualTo(rowsBefore);
    assertEverySnapshotsFilesExist(table);
    Set<String> live = new TreeSet<>();
    liveTasks(table).forEach(task -> live.add(task.file().location()));
    assertThat(live).as("the kept outputs are the table's files now").containsAll(outputs);
  }

  /** The Parquet files the job wrote in the table's data folder: their names carry its id. */
  private List<String> jobOutputs(String jobId) {
    List<String> outputs = new ArrayList<>();
    for (S3Object object : s3.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
      if (object.key().contains("/data/")
          && object.key().contains(jobId)
          && object.key().endsWith(".parquet")) {
        outputs.add("s3://" + bucket + "/" + object.key());
      }
    }
    return outputs;
  }

  /** No file that any snapshot references, data or delete, was deleted. */
  private void assertEverySnapshotsFilesExist(Table table) {
    Set<String> referenced = new TreeSet<>();
    for (Snapshot snapshot : snapshots(table)) {
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          referenced.add(task.file().location());
          task.deletes().forEach(delete -> referenced.add(delete.location()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(referenced).isNotEmpty();
    assertThat(referenced)
        .allSatisfy(
            location ->
                assertThat(table.io().newInputFile(location).exists()).as(location).isTrue());
  }
}
