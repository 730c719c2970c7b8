package io.icecompact.bench;

import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.RewritePathChoice;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;

/** Prints the bench as Markdown tables: one line per table shape, one row per run. */
public final class BenchReport {
  private static final String HEADER =
      "| shape | path | prefetch | threads | column threads | wall s | CPU s | MB/s | MB/s min–max | rows/s"
          + " | peak heap MB | groups by path |\n"
          + "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|";

  private final PrintWriter out;
  private long rowGroupBytes;

  public BenchReport(PrintWriter out) {
    this.out = out;
  }

  void table(String shape, Table table, JobPlan plan, double planSeconds) {
    long files = 0;
    long positionDeleteFiles = 0;
    long equalityDeleteFiles = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        positionDeleteFiles +=
            task.deletes().stream()
                .filter(d -> d.content() == FileContent.POSITION_DELETES)
                .count();
        equalityDeleteFiles +=
            task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES)
                ? 1
                : 0;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    rowGroupBytes =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT);
    out.printf(
        Locale.ROOT,
        "%n'%s': %d files, %.1f MB, %,d rows, format v%d, %s; %d files with position deletes,"
            + " %d under equality deletes; %d groups, planned in %.2f s%n%n%s%n",
        shape,
        files,
        plan.groups().stream().mapToLong(PlannedGroup::inputBytes).sum() / (1024.0 * 1024),
        plan.groups().stream().mapToLong(PlannedGroup::inputRows).sum(),
        plan.pinned().formatVersion(),
        table.spec().isUnpartitioned()
            ? "unpartitioned"
            : table.spec().fields().size() + " partition field(s)",
        positionDeleteFiles,
        equalityDeleteFiles,
        plan.groups().size(),
        planSeconds,
        HEADER);
    out.flush();
  }

  /** One row per configuration: the median round (by wall time), the range, the highest heap. */
  void row(
      String shape,
      RewritePathChoice path,
      PrefetchLimits prefetch,
      int threads,
      int columnThreads,
      List<PathRun.Figures> rounds) {
    List<PathRun.Figures> byTime = new ArrayList<>(rounds);
    byTime.sort(Comparator.comparingDouble(PathRun.Figures::seconds));
    PathRun.Figures median = byTime.get(byTime.size() / 2);
    PathRun.Figures last = rounds.get(rounds.size() - 1);
    out.printf(
        Locale.ROOT,
        "| %s | %s | %s | %d | %d | %.2f | %.2f | %.1f | %.1f–%.1f | %,.0f | %.0f | %s |%n",
        shape,
        path.name().toLowerCase(Locale.ROOT),
        prefetch.enabled()
            ? String.format(Locale.ROOT, "on (%d files)", last.prefetch().filesPrefetched())
            : "off",
        threads,
        columnThreads,
        median.seconds(),
        median.cpuSeconds(),
        median.megabytesPerSecond(),
        byTime.get(byTime.size() - 1).megabytesPerSecond(),
        byTime.get(0).megabytesPerSecond(),
        median.rowsPerSecond(),
        rounds.stream().mapToLong(PathRun.Figures::peakHeapBytes).max().orElse(0) / (1024.0 * 1024),
        last.spilled().runs() == 0
            ? last.paths()
            : String.format(
                Locale.ROOT,
                "%s; spilled %d runs, %.1f MB",
                last.paths(),
                last.spilled().runs(),
                last.spilled().bytes() / (1024.0 * 1024)));
    out.flush();
  }

  public void footer(boolean memory, long maxHeapBytes, int warmups, int rounds) {
    out.printf(
        Locale.ROOT,
        "%nmax heap %.0f MB; output row-group size %.0f MB (write.parquet.row-group-size-bytes); CPU s is the"
            + " process's CPU time over the median run (workers, prefetch, GC, JIT); peak heap is"
            + " sampled every 10 ms, garbage included; each row: %d warm-up run(s), then the median of %d"
            + " run(s) by wall time%s%n",
        maxHeapBytes / (1024.0 * 1024),
        rowGroupBytes / (1024.0 * 1024),
        warmups,
        rounds,
        memory ? "; memory mode: the whole table is one group, rewritten on one thread" : "");
  }
}
