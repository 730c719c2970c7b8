package io.icecompact.engine.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.care.OrphanFilesStep;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.LocalS3;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OrphanFilesStep} listing through S3FileIO on an S3 API (s3proxy in the JVM). S3 sets an
 * object's time itself, so the step runs with a clock four days ahead: every object looks old and
 * only reachability keeps the table's files.
 */
class OrphanFilesOnLocalS3Test {
  private static final String TABLE = "db.orders";
  private static final FragmentedTable.Shape SHAPE =
      new FragmentedTable.Shape(2, 4, 100, 2, 2, 6, true);

  @TempDir Path dir;
  private LocalS3 s3;
  private Map<String, String> catalog;
  private TableAccess access;

  @BeforeEach
  void tableOnS3() {
    s3 = new LocalS3().start();
    String bucket = s3.createBucket("orphans");
    catalog = s3.jdbcCatalogProperties(bucket, dir.resolve("catalog.db"));
    access = new TableAccess(catalog);
  }

  @AfterEach
  void stopS3() {
    access.close();
    s3.close();
  }

  @Test
  void listsThroughS3AndDeletesOnlyUnreachableObjects() {
    FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), SHAPE);
    JobResult compaction =
        new EmbeddedJobRunner(2, ProgressListener.NONE)
            .run(
                new JobSpec(null, TABLE, catalog, Map.of("rewrite-all", "true"), null, null, null));
    assertThat(compaction.status()).isEqualTo(JobStatus.COMMITTED);
    Table table = access.loadTable(TABLE);
    Map<String, Long> rows = LiveRows.multiset(table);
    String orphan =
        table.location() + "/data/ordered_at_day=2026-06-01/00009-killed-worker.parquet";
    String doubledSlash = table.location() + "/metadata//stale-m0.avro";
    write(table, orphan);
    write(table, doubledSlash);
    Set<String> reachable = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      reachable.addAll(CareTestBase.filesOf(table, snapshot));
    }

    Clock fourDaysLater = Clock.fixed(Instant.now().plus(Duration.ofDays(4)), ZoneOffset.UTC);
    OrphanFilesStep.Report report =
        new OrphanFilesStep(
                access.catalog(),
                TABLE,
                OrphanFilesStep.DEFAULT_MIN_AGE,
                null,
                fourDaysLater,
                t -> {})
            .run(access.loadTable(TABLE));

    assertThat(report.problems()).isEmpty();
    assertThat(report.orphansDeleted().count()).isEqualTo(2);
    assertThat(report.orphansDeleted().sample()).contains(orphan);
    assertThat(exists(table, orphan)).isFalse();
    assertThat(exists(table, doubledSlash)).isFalse();
    assertThat(reachable).allSatisfy(file -> assertThat(exists(table, file)).as(file).isTrue());
    assertThat(report.workLocationsRemoved()).isEqualTo(1);
    Iterable<FileInfo> work =
        ((SupportsPrefixOperations) table.io())
            .listPrefix(table.location() + "/_icecompact/" + compaction.jobId() + "/");
    assertThat(work).isEmpty();
    assertThat(LiveRows.multiset(access.loadTable(TABLE))).isEqualTo(rows);
    System.err.printf(
        "orphans on S3: %d listed, %d orphans deleted, %d work files deleted%n",
        report.filesListed(), report.orphansDeleted().count(), report.workFilesDeleted().count());
  }

  private static void write(Table table, String location) {
    try (OutputStream out = table.io().newOutputFile(location).createOrOverwrite()) {
      out.write("orphan".getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean exists(Table table, String location) {
    return table.io().newInputFile(location).exists();
  }
}
