package io.icecompact.engine.prefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.PlanCopy;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.testkit.LocalS3;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.PrefetchStats;
import io.icecompact.worker.PrefetchingFileIO;
import io.icecompact.worker.WorkerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The input prefetch against real S3 requests (s3proxy in the JVM, Iceberg's S3FileIO): the same
 * output with and without it, requests and bytes within its bounds, typed failures and a clean
 * close.
 */
class PrefetchOnLocalS3Test {
  private static final String TABLE = "db.orders";

  /**
   * 2 day partitions of 6 files of 300 rows, position deletes on 3 files, 10 equality-deleted ids.
   */
  private static final FragmentedTable.Shape SHAPE =
      new FragmentedTable.Shape(2, 6, 300, 2, 3, 10, true);

  private static LocalS3 s3;
  @TempDir static Path dir;
  private static Map<String, String> catalog;
  private static TableAccess access;
  private static Table table;
  private static RewritePlanner.PlannedJob planned;

  /**
   * One table for all tests: none changes it (each rewrite writes new files under its own job id).
   */
  @BeforeAll
  static void tableOnS3() {
    s3 = new LocalS3().start();
    String bucket = s3.createBucket("prefetch");
    catalog = s3.jdbcCatalogProperties(bucket, dir.resolve("catalog.db"));
    access = new TableAccess(catalog);
    table = FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), SHAPE);
    planned = new RewritePlanner(access).dryRun(spec());
  }

  @AfterAll
  static void stopS3() {
    access.close();
    s3.close();
  }

  @Test
  void groupOutputIsTheSameWithAndWithoutPrefetch() {
    GroupRewriter withPrefetch =
        new GroupRewriter(access, WorkerSettings.defaults().withPrefetch(PrefetchLimits.DEFAULT));
    GroupRewriter without =
        new GroupRewriter(access, WorkerSettings.defaults().withPrefetch(PrefetchLimits.OFF));
    long start = System.nanoTime();
    Map<Integer, GroupOutput> prefetched = rewriteAll("prefetched", withPrefetch);
    long middle = System.nanoTime();
    Map<Integer, GroupOutput> direct = rewriteAll("direct", without);
    long end = System.nanoTime();
    // recorded, not asserted: local S3 has no latency, so this shows the prefetch's cost, not its
    // gain
    System.out.printf(
        "prefetch on local S3: %d groups, with prefetch %d ms (%s), without %d ms%n",
        prefetched.size(),
        (middle - start) / 1_000_000,
        withPrefetch.prefetchStats(),
        (end - middle) / 1_000_000);

    assertThat(withPrefetch.prefetchStats().filesPrefetched()).isPositive();
    assertThat(without.prefetchStats()).isEqualTo(PrefetchStats.NONE);
    assertThat(prefetched).hasSize(SHAPE.days());
    assertThat(prefetched.values()).allSatisfy(group -> assertThat(group.rows()).isNotEmpty());
    assertThat(prefetched).isEqualTo(direct);
  }

  @Test
  void requestsAndBytesInFlightStayWithinTheLimits() throws IOException {
    List<FileScanTask> tasks = planned.tasks(0);
    long largest = inputs(tasks).values().stream().mapToLong(Long::longValue).max().orElseThrow();
    // room for three of the largest files and two requests: the budget, not the file count, binds
    PrefetchLimits limits = new PrefetchLimits(2, 3 * largest, largest);
    CountingFileIO storage = new CountingFileIO(access.fileIO());
    Map<String, byte[]> read = new LinkedHashMap<>();
    PrefetchStats stats;
    try (PrefetchingFileIO inputs = PrefetchingFileIO.start(storage, tasks, limits)) {
      awaitWindowFull(inputs, limits, largest);
      for (FileScanTask task : tasks) {
        for (ContentFile<?> delete : task.deletes()) {
          read.putIfAbsent(delete.location(), readAll(inputs.newInputFile(delete.location())));
        }
        read.put(task.file().location(), readAll(inputs.newInputFile(task.file().location())));
      }
      stats = inputs.stats();
    }

    assertThat(stats.peakConcurrentRequests()).isBetween(1, 2);
    assertThat(stats.peakBytesInFlight()).isGreaterThan(largest).isLessThanOrEqualTo(3 * largest);
    assertThat(storage.peakOpen()).isLessThanOrEqualTo(2);
    assertThat(storage.peakOpenBytes()).isLessThanOrEqualTo(3 * largest);
    assertThat(storage.open()).isZero();
    assertThat(stats.filesPrefetched() + stats.filesReadDirectly())
        .isGreaterThanOrEqualTo(read.size());
    assertThat(stats.filesPrefetched()).isPositive();
    for (Map.Entry<String, byte[]> file : read.entrySet()) {
      assertThat(file.getValue())
          .as(file.getKey())
          .isEqualTo(readAll(access.fileIO().newInputFile(file.getKey())));
    }
  }

  @Test
  void aFileMissingFromStorageFailsTypedInTheRewritesThreadAndCloseLeavesNothingOpen() {
    List<FileScanTask> tasks = planned.tasks(0);
    String missing = tasks.get(1).file().location();
    CountingFileIO storage = new CountingFileIO(new MissingFileIO(access.fileIO(), missing));
    try (PrefetchingFileIO inputs =
        PrefetchingFileIO.start(storage, tasks, PrefetchLimits.DEFAULT)) {
      awaitAllFetched(inputs);
      assertThatThrownBy(() -> inputs.newInputFile(missing))
          .isInstanceOf(CorruptInputFileException.class)
          .hasMessageContaining(missing);
    }
    assertThat(storage.open()).isZero();
  }

  @Test
  void closeStopsFetchingAndLaterReadsGoToStorage() {
    List<FileScanTask> tasks = planned.tasks(0);
    CountingFileIO storage = new CountingFileIO(access.fileIO());
    PrefetchingFileIO inputs =
        PrefetchingFileIO.start(storage, tasks, new PrefetchLimits(1, 1 << 20, 1 << 20));
    inputs.close();
    int streamsAtClose = storage.streams();

    InputFile later = inputs.newInputFile(tasks.get(0).file().location());

    assertThat(later).isNotInstanceOf(InMemoryInputFile.class);
    assertThat(storage.open()).isZero();
    assertThat(storage.streams()).isEqualTo(streamsAtClose);
  }

  // ---- helpers ----

  private static JobSpec spec() {
    return new JobSpec(null, TABLE, catalog, Map.of(), null, null, null);
  }

  /** A group's output: its rows in file order and its files' metadata, less their names. */
  private record GroupOutput(List<String> rows, List<JsonNode> files) {}

  private Map<Integer, GroupOutput> rewriteAll(String run, GroupRewriter rewriter) {
    PlanSummary summary =
        PlanCopy.store(
            access, planned, table.location(), TABLE, planned.plan().jobId() + "-" + run);
    JobStore store = new JobStore(access.fileIO());
    Map<Integer, GroupOutput> outputs = new TreeMap<>();
    for (int index : summary.groupIndexes()) {
      rewriter.rewrite(GroupRequest.of(spec(), summary, index, 1));
      GroupResult result =
          store.readGroupResult(new WorkLocation(summary.workLocation()), index).orElseThrow();
      List<String> rows = new ArrayList<>();
      List<JsonNode> files = new ArrayList<>();
      for (JsonNode file : result.outputFiles()) {
        rows.addAll(rows(file.get("file-path").asText()));
        ObjectNode unnamed = file.deepCopy();
        unnamed.remove("file-path");
        files.add(unnamed);
      }
      outputs.put(index, new GroupOutput(rows, files));
    }
    return outputs;
  }

  private List<String> rows(String location) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(access.fileIO().newInputFile(location))
            .project(table.schema())
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
            .build()) {
      for (Record record : records) {
        rows.add(LiveRows.text(record, table.schema().columns().size()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static Map<String, Long> inputs(List<FileScanTask> tasks) {
    Map<String, Long> sizes = new TreeMap<>();
    for (FileScanTask task : tasks) {
      sizes.put(task.file().location(), task.file().fileSizeInBytes());
      task.deletes().forEach(delete -> sizes.put(delete.location(), delete.fileSizeInBytes()));
    }
    return sizes;
  }

  private static byte[] readAll(InputFile file) {
    byte[] bytes = new byte[Math.toIntExact(file.getLength())];
    try (SeekableInputStream in = file.newStream()) {
      IOUtil.readFully(in, bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes;
  }

  /**
   * Waits until the fetchers have filled the budget (up to one file short): the bound is then
   * tested.
   */
  private static void awaitWindowFull(
      PrefetchingFileIO inputs, PrefetchLimits limits, long largest) {
    await(() -> inputs.stats().peakBytesInFlight() > limits.maxBytesInFlight() - largest);
  }

  private static void awaitAllFetched(PrefetchingFileIO inputs) {
    await(() -> inputs.stats().filesPrefetched() >= inputs.plannedFiles() - 1);
  }

  private static void await(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached within 30 s");
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
