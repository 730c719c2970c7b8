package io.icecompact.bench;

import io.icecompact.core.job.GroupResult;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * {@code bench --e2e}: builds Spark-shaped streaming tables ({@link SparkShapedTable}) or CDC
 * tables as Flink's upsert or changelog sink writes them ({@link FlinkUpsertTable}) and runs the
 * whole {@code compact} job on them, in the bench's JVM (after warm-up runs) and in a fresh JVM,
 * per rewrite path. After every run the live rows are read back and compared with the table's
 * before (count and multiset checksum), then the table is rolled back to its generated snapshot and
 * the run's files deleted, so every run compacts the same table.
 */
public final class EndToEndBench {
  static final String TABLE = "bench.events";

  /**
   * The CDC sizes, by name: Flink-written tables ({@link FlinkUpsertTable.Shape}); the format
   * version is --format-versions'.
   */
  private static final Map<String, Supplier<FlinkUpsertTable.Shape>> CDC_SIZES =
      new LinkedHashMap<>();

  static {
    CDC_SIZES.put("upsert", FlinkUpsertTable.Shape::upsert);
    CDC_SIZES.put("upsert-10x", FlinkUpsertTable.Shape::upsert10x);
    CDC_SIZES.put("changelog", FlinkUpsertTable.Shape::changelog);
    CDC_SIZES.put(
        "upsert-s", () -> FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.UPSERT, 2, false));
    CDC_SIZES.put(
        "changelog-s",
        () -> FlinkUpsertTable.Shape.small(FlinkUpsertTable.Mode.CHANGELOG, 2, false));
  }

  /**
   * A size --e2e builds: a Spark-written one ({@code spark}) or a Flink-written CDC one ({@code
   * cdc}).
   */
  record TableSize(String name, SparkShapedTable.Size spark, FlinkUpsertTable.Shape cdc) {
    static TableSize named(String name) {
      Supplier<FlinkUpsertTable.Shape> cdc = CDC_SIZES.get(name);
      if (cdc != null) {
        return new TableSize(name, null, cdc.get());
      }
      try {
        return new TableSize(name, SparkShapedTable.Size.named(name), null);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Unknown size '"
                + name
                + "': use S, M, DAYSxFILESxROWS (at least 1x1x100) or a CDC size: "
                + String.join(", ", CDC_SIZES.keySet()));
      }
    }
  }

  /**
   * The size's name if --e2e can build it, else IllegalArgumentException naming the sizes it can.
   */
  public static String checkSize(String name) {
    return TableSize.named(name).name();
  }

  /** What to run. */
  public record Settings(
      List<String> sizes,
      List<Integer> formatVersions,
      List<RewritePathChoice> paths,
      int workers,
      boolean inProcess,
      boolean freshProcess,
      int warmups,
      List<String> javaOptions,
      CompressionCodecName codec) {}

  private final Path base;
  private final Settings settings;
  private final EndToEndReport report;
  private final PrintWriter err;
  private boolean allRowsKept = true;
  private boolean allJobsDone = true;

  public EndToEndBench(Path base, Settings settings, PrintWriter out, PrintWriter err) {
    this.base = base;
    this.settings = settings;
    this.report = new EndToEndReport(out);
    this.err = err;
  }

  /** Runs every configuration; false when a run changed the live rows. */
  public boolean run() {
    FreshProcessJob fresh = new FreshProcessJob(settings.javaOptions());
    double startup = settings.freshProcess() ? fresh.startupSeconds() : Double.NaN;
    for (String sizeName : settings.sizes()) {
      TableSize size = TableSize.named(sizeName);
      for (int version : settings.formatVersions()) {
        Map<String, String> catalog = generate(size, version);
        for (RewritePathChoice path : settings.paths()) {
          if (settings.inProcess()) {
            for (int i = 0; i < settings.warmups(); i++) {
              verifyAndRestore(catalog, InProcessJob.run(catalog, TABLE, path, settings.workers()));
            }
            report.row(
                size.name(),
                version,
                path,
                "warm JVM",
                verifyAndRestore(
                    catalog, InProcessJob.run(catalog, TABLE, path, settings.workers())));
          }
          if (settings.freshProcess()) {
            report.row(
                size.name(),
                version,
                path,
                "fresh JVM",
                verifyAndRestore(catalog, fresh.run(catalog, TABLE, path, settings.workers())));
          }
        }
      }
    }
    report.footer(settings, startup);
    return allRowsKept;
  }

  /** False when a run's job did not succeed (its row says how it ended). */
  public boolean allJobsDone() {
    return allJobsDone;
  }

  private Map<String, String> generate(TableSize size, int version) {
    Path dir = base.resolve("e2e-" + size.name() + "-v" + version);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> catalog = LocalWarehouse.catalogProperties(dir);
    long start = System.nanoTime();
    try (TableAccess access = new TableAccess(catalog)) {
      Table table;
      if (size.cdc() != null) {
        table =
            FlinkUpsertTable.create(
                    access.catalog(),
                    TableIdentifier.parse(TABLE),
                    size.cdc().withFormatVersion(version))
                .table();
      } else {
        table =
            SparkShapedTable.create(
                access.catalog(),
                TableIdentifier.parse(TABLE),
                size.spark(),
                version,
                settings.codec());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      err.printf(
          Locale.ROOT,
          "generated %s v%d in %.1f s; reading its live rows...%n",
          size.name(),
          version,
          seconds);
      err.flush();
      LiveRowChecksum rows = LiveRowChecksum.of(table);
      if (size.cdc() != null) {
        report.table(size.name(), size.cdc().withFormatVersion(version), table, rows, seconds);
      } else {
        report.table(size.spark(), version, table, rows);
      }
      baseline = new Baseline(table.currentSnapshot().snapshotId(), rows, size.cdc() != null);
    }
    return catalog;
  }

  private record Baseline(long snapshotId, LiveRowChecksum rows, boolean cdc) {}

  private Baseline baseline;

  /**
   * Reads the live rows back, compares them with the generated table's, records the groups' own
   * times, then rolls the table back and deletes the data files the run added.
   */
  private EndToEndReport.Verified verifyAndRestore(
      Map<String, String> catalog, JobRunFigures figures) {
    if (figures.result() != null
        && figures.result().status() == io.icecompact.core.job.JobStatus.NOTHING_TO_DO) {
      throw new IllegalArgumentException(
          "Nothing to rewrite in the generated table ("
              + figures.result().reason()
              + "): "
              + (baseline.cdc() ? "give it more checkpoints" : "give it at least 5 files per day"));
    }
    allJobsDone &= figures.result() != null && figures.result().status().success();
    try (TableAccess access = new TableAccess(catalog)) {
      Table table = access.loadTable(TABLE);
      LiveRowChecksum after = LiveRowChecksum.of(table);
      boolean same = after.equals(baseline.rows());
      allRowsKept &= same;
      List<GroupResult> groups =
          JobRunFigures.groupResults(access, table.location(), TABLE, figures.result());
      List<Long> groupMillis = groups.stream().map(GroupResult::durationMillis).toList();
      if (table.currentSnapshot().snapshotId() != baseline.snapshotId()) {
        table.manageSnapshots().rollbackTo(baseline.snapshotId()).commit();
      }
      // only after the rollback: until then the committed snapshot still references them
      groups.forEach(
          group ->
              group
                  .outputFiles()
                  .forEach(file -> table.io().deleteFile(file.get("file-path").asText())));
      return new EndToEndReport.Verified(
          figures.withGroupMillis(groupMillis),
          same ? "same " + after : "CHANGED: " + after + " (was " + baseline.rows() + ")");
    }
  }

  /** Live data files of the table: their count and bytes. */
  static long[] dataFiles(Table table) {
    long[] files = new long[2];
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        files[0]++;
        files[1] += task.file().fileSizeInBytes();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
