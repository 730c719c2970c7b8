package io.icecompact.engine.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.care.DeleteCleanupStep;
import io.icecompact.care.ExpireSnapshotsStep;
import io.icecompact.care.OrphanFilesStep;
import io.icecompact.care.RewriteManifestsStep;
import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.table.TableAccessRole;
import io.icecompact.core.table.TableSessionPolicy;
import io.icecompact.core.table.TableSessionPolicy.Stage;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.testkit.FaultyS3;
import io.icecompact.testkit.FaultyS3.PolicyDecision;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.LocalSts;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Every stage run through an S3 stand-in that enforces the stage's {@link TableSessionPolicy}
 * (FaultyS3's policy mode, which maps each request to the IAM actions S3 checks): each stage
 * succeeds, every write and delete it makes is allowed, and the neighbour table of the same
 * warehouse prefix ({@code db.orders_archive}, whose folder starts with the same characters) is
 * denied.
 */
class TableSessionPolicyOnLocalS3Test {
  private static final String TABLE = "db.orders";
  private static final String NEIGHBOUR = "db.orders_archive";
  private static final FragmentedTable.Shape SHAPE =
      new FragmentedTable.Shape(2, 4, 100, 2, 2, 6, true);
  private static final List<String> WRITES =
      List.of("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload");

  private static final String ROLE = "arn:aws:iam::123456789012:role/icecompact-table-access";

  @TempDir Path dir;
  private LocalS3 s3;
  private FaultyS3 proxy;
  private Map<String, String> catalog;
  private TableAccess access;

  @BeforeEach
  void tablesOnS3() {
    s3 = new LocalS3().start();
    s3.createBucket("warehouse");
    s3.createBucket("elsewhere");
    proxy = new FaultyS3(s3, 7).start();
    catalog = proxy.jdbcCatalogProperties("warehouse", dir.resolve("catalog.db"));
    access = new TableAccess(catalog);
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), SHAPE);
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(NEIGHBOUR), SHAPE);
  }

  @AfterEach
  void stop() {
    access.close();
    proxy.close();
    s3.close();
  }

  @Test
  void everyStageSucceedsInsideItsPolicyAndWritesOnlyUnderItsTable() {
    JobSpec spec = job(TABLE, "job-scoped");
    Table table = access.loadTable(TABLE);
    Map<String, Long> rows = LiveRows.multiset(table);
    String work = WorkLocation.of(null, table.location(), TABLE, spec.jobId()).jobDirectory();
    String location = table.location();

    enforce(table, work, Stage.PLANNER);
    PlanSummary summary = new RewritePlanner(access).plan(spec);
    assertThat(summary.planned()).isTrue();
    assertEveryWriteAllowedAndUnder(work);

    enforce(table, work, Stage.WORKER);
    assertThat(new EmbeddedJobRunner(2, ProgressListener.NONE).rewriteOnly(spec, summary))
        .isEmpty();
    assertEveryWriteAllowedAndUnder(work, location + "/data");
    assertThat(writesUnder(location + "/data")).as("data files written").isNotEmpty();

    enforce(access.loadTable(TABLE), work, Stage.COMMITTER);
    JobResult result =
        new JobCommitter(access)
            .commit(CommitRequest.of(spec, summary), System.currentTimeMillis());
    assertThat(result.status()).isEqualTo(JobStatus.COMMITTED);
    assertEveryWriteAllowedAndUnder(work, location + "/data", location + "/metadata");
    assertThat(writesUnder(location + "/metadata")).as("metadata written").isNotEmpty();

    proxy.stopEnforcing();
    assertThat(LiveRows.multiset(access.loadTable(TABLE))).isEqualTo(rows);
  }

  @Test
  void everyCareStepSucceedsInsideTheCarePolicy() {
    Table table = access.loadTable(TABLE);
    Map<String, Long> rows = LiveRows.multiset(table);
    String location = table.location();
    table
        .updateProperties()
        .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1")
        .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1")
        .set(TableProperties.MANIFEST_TARGET_SIZE_BYTES, Long.toString(64L << 20))
        .commit();
    String orphan = location + "/data/ordered_at_day=2026-06-01/00009-killed-worker.parquet";
    write(access.loadTable(TABLE), orphan);
    enforce(access.loadTable(TABLE), location + "/" + WorkLocation.DEFAULT_FOLDER, Stage.CARE);

    RewriteManifestsStep.Report manifests =
        new RewriteManifestsStep(1).run(access.loadTable(TABLE));
    assertThat(manifests.rewritten()).as(manifests.reason()).isTrue();
    DeleteCleanupStep.Report cleaned = new DeleteCleanupStep().run(access.loadTable(TABLE));
    assertThat(cleaned.problems()).isEmpty();
    ExpireSnapshotsStep.Report expired =
        new ExpireSnapshotsStep(access.catalog(), TABLE).run(access.loadTable(TABLE));
    assertThat(expired.problems()).isEmpty();
    assertThat(expired.filesDeleted().count()).isPositive();
    Clock fourDaysLater = Clock.fixed(Instant.now().plus(Duration.ofDays(4)), ZoneOffset.UTC);
    OrphanFilesStep.Report orphans =
        new OrphanFilesStep(
                access.catalog(),
                TABLE,
                OrphanFilesStep.DEFAULT_MIN_AGE,
                null,
                fourDaysLater,
                t -> {})
            .run(access.loadTable(TABLE));
    assertThat(orphans.problems()).isEmpty();
    assertThat(orphans.orphansDeleted().sample()).contains(orphan);
    assertEveryWriteAllowedAndUnder(location);
    assertThat(proxy.decisions())
        .as("care deleted files (expired snapshots' files, the orphan)")
        .anyMatch(d -> d.action().equals("s3:DeleteObject") && d.allowed());
    assertThat(proxy.decisions())
        .as("care read the neighbour's metadata to look for shared files: reads are not narrowed")
        .anyMatch(
            d -> d.action().equals("s3:GetObject") && d.resource().contains("/db/orders_archive/"));
    proxy.stopEnforcing();
    assertThat(LiveRows.multiset(access.loadTable(TABLE))).isEqualTo(rows);
  }

  @Test
  void underEveryStagesPolicyTheNeighboursFolderIsDenied() {
    Table table = access.loadTable(TABLE);
    Table neighbour = access.loadTable(NEIGHBOUR);
    String neighbourFile = firstDataFile(neighbour);
    String neighbourKey = neighbourFile.substring("s3://warehouse/".length());
    String work = WorkLocation.of(null, table.location(), TABLE, "job-n").jobDirectory();
    for (Stage stage : Stage.values()) {
      enforce(table, work, stage);
      assertDenied(
          () ->
              proxy
                  .client()
                  .putObject(
                      b -> b.bucket("warehouse").key(neighbourKey + ".planted"),
                      RequestBody.fromString("x")));
      assertDenied(() -> proxy.client().deleteObject(b -> b.bucket("warehouse").key(neighbourKey)));
      assertDenied(
          () ->
              proxy
                  .client()
                  .putObject(
                      b ->
                          b.bucket("warehouse")
                              .key("warehouse/db/orders_archive/metadata/v99.metadata.json"),
                      RequestBody.fromString("{}")));
      assertThat(writes()).as(stage.name()).isNotEmpty().noneMatch(PolicyDecision::allowed);
    }
    proxy.stopEnforcing();
    assertThat(neighbour.io().newInputFile(neighbourFile).exists()).isTrue();
  }

  @Test
  void aTableWhoseDataPathIsElsewhereGetsThatPath() {
    String moved = "db.moved";
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(moved), SHAPE);
    access
        .loadTable(moved)
        .updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, "s3://elsewhere/moved-data")
        .commit();
    JobSpec spec = job(moved, "job-moved");
    Table table = access.loadTable(moved);
    String work = WorkLocation.of(null, table.location(), moved, spec.jobId()).jobDirectory();
    assertThat(TableSessionPolicy.of(table, work, Stage.WORKER).orElseThrow().writeFolders())
        .contains("s3://elsewhere/moved-data");

    enforce(table, work, Stage.PLANNER);
    PlanSummary summary = new RewritePlanner(access).plan(spec);
    enforce(table, work, Stage.WORKER);
    assertThat(new EmbeddedJobRunner(1, ProgressListener.NONE).rewriteOnly(spec, summary))
        .isEmpty();
    assertThat(proxy.decisions())
        .filteredOn(d -> d.action().equals("s3:PutObject"))
        .allMatch(PolicyDecision::allowed)
        .anyMatch(d -> d.resource().startsWith("arn:aws:s3:::elsewhere/moved-data/"))
        .noneMatch(d -> d.resource().contains("/db/moved/data/"));
    enforce(access.loadTable(moved), work, Stage.COMMITTER);
    assertThat(
            new JobCommitter(access)
                .commit(CommitRequest.of(spec, summary), System.currentTimeMillis())
                .status())
        .isEqualTo(JobStatus.COMMITTED);
    assertThat(proxy.decisions()).allMatch(PolicyDecision::allowed);
  }

  @Test
  void theCommitterAssumingTheRoleThroughStsWritesUnderItsSessionPolicyOnly() {
    try (LocalSts sts = new LocalSts(proxy).start()) {
      JobSpec spec = job(TABLE, "job-sts");
      Table table = access.loadTable(TABLE);
      String work = WorkLocation.of(null, table.location(), TABLE, spec.jobId()).jobDirectory();
      PlanSummary summary = new RewritePlanner(access).plan(spec);
      assertThat(new EmbeddedJobRunner(2, ProgressListener.NONE).rewriteOnly(spec, summary))
          .isEmpty();
      assertThat(proxy.decisions()).as("nothing enforced without a session").isEmpty();
      TableSessionPolicy policy =
          TableSessionPolicy.of(access.loadTable(TABLE), work, Stage.COMMITTER).orElseThrow();
      TableAccessRole role = new TableAccessRole(ROLE, sts.endpoint());

      try (TableAccess scoped = access.scopedTo(role, policy)) {
        JobResult result =
            new JobCommitter(scoped)
                .commit(CommitRequest.of(spec, summary), System.currentTimeMillis());
        assertThat(result.status()).isEqualTo(JobStatus.COMMITTED);
        assertEveryWriteAllowedAndUnder(
            work, table.location() + "/data", table.location() + "/metadata");
        assertThat(writesUnder(table.location() + "/metadata")).isNotEmpty();

        Table neighbour = access.loadTable(NEIGHBOUR);
        String neighbourFile = firstDataFile(neighbour);
        assertThatThrownBy(() -> scoped.fileIO().deleteFile(neighbourFile))
            .satisfies(
                e ->
                    assertThat(rootOrSelf(e))
                        .isInstanceOfSatisfying(
                            S3Exception.class, s -> assertThat(s.statusCode()).isEqualTo(403)));
        assertThat(neighbour.io().newInputFile(neighbourFile).exists()).isTrue();
      }
      assertThat(sts.assumed()).isNotEmpty();
      assertThat(sts.assumed())
          .allSatisfy(
              call -> {
                assertThat(call.roleArn()).isEqualTo(ROLE);
                assertThat(call.policy()).isEqualTo(policy.json());
                assertThat(call.durationSeconds()).isEqualTo(TableAccessRole.SESSION_SECONDS);
                assertThat(call.sessionName()).isEqualTo("icecompact-committer");
              });
    }
  }

  /** Closes the scan, whose manifest reads would otherwise go on in the background. */
  private static String firstDataFile(Table table) {
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().planFiles()) {
      return tasks.iterator().next().file().location();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Throwable rootOrSelf(Throwable e) {
    Throwable t = e;
    while (!(t instanceof S3Exception) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private JobSpec job(String table, String jobId) {
    return new JobSpec(jobId, table, catalog, Map.of("rewrite-all", "true"), null, null, null);
  }

  private void enforce(Table table, String work, Stage stage) {
    TableSessionPolicy policy = TableSessionPolicy.of(table, work, stage).orElseThrow();
    proxy.clearDecisions();
    proxy.enforce(policy.json());
  }

  private List<PolicyDecision> writes() {
    return proxy.decisions().stream().filter(d -> WRITES.contains(d.action())).toList();
  }

  private List<PolicyDecision> writesUnder(String folder) {
    String arn = "arn:aws:s3:::" + folder.substring("s3://".length()) + "/";
    return writes().stream().filter(d -> d.resource().startsWith(arn)).toList();
  }

  private void assertEveryWriteAllowedAndUnder(String... folders) {
    assertThat(writes()).as("writes made").isNotEmpty();
    assertThat(proxy.decisions()).as("every decision").allMatch(PolicyDecision::allowed);
    int under = 0;
    for (String folder : folders) {
      under += writesUnder(folder).size();
    }
    assertThat(under)
        .as("writes under " + List.of(folders))
        .isGreaterThanOrEqualTo(writes().size());
  }

  private void assertDenied(Runnable request) {
    proxy.clearDecisions();
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied"));
  }

  private static void write(Table table, String location) {
    try (OutputStream out = table.io().newOutputFile(location).createOrOverwrite()) {
      out.write("orphan".getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
