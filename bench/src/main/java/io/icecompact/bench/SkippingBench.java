package io.icecompact.bench;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LocalWarehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * {@code bench --skipping}: what ordering rows buys readers. The same unpartitioned streaming table
 * (the demo's rows: 30 days of orders, 150 files) is built once per layout and compacted into files
 * of about 1 MB by bin-pack (input order, i.e. by time), a sort on {@code customer_id} and a
 * z-order on {@code (customer_id, ordered_at)}. For selective predicates it then counts the files
 * and bytes Iceberg's scan planning keeps (its min/max pruning): the files a query engine would
 * open.
 */
public final class SkippingBench {
  static final String TABLE = "bench.skipping";
  private static final long TARGET_FILE_SIZE = 1024 * 1024;

  private record Layout(String name, Map<String, String> options) {}

  private record Predicate(String name, Expression filter) {}

  private static final List<Layout> LAYOUTS =
      List.of(
          new Layout("binpack (input order)", Map.of()),
          new Layout("sort customer_id", Map.of("sort-order", "customer_id")),
          new Layout(
              "zorder(customer_id, ordered_at)",
              Map.of("sort-order", "zorder(customer_id, ordered_at)")));

  private static final List<Predicate> PREDICATES =
      List.of(
          new Predicate(
              "1% of customers",
              Expressions.and(
                  Expressions.greaterThanOrEqual("customer_id", 10_000L),
                  Expressions.lessThan("customer_id", 10_500L))),
          new Predicate(
              "1 day of 30",
              Expressions.and(
                  Expressions.greaterThanOrEqual("ordered_at", "2026-06-10T00:00:00+00:00"),
                  Expressions.lessThan("ordered_at", "2026-06-11T00:00:00+00:00"))),
          new Predicate(
              "5% of customers, 5 days",
              Expressions.and(
                  Expressions.and(
                      Expressions.greaterThanOrEqual("customer_id", 10_000L),
                      Expressions.lessThan("customer_id", 12_500L)),
                  Expressions.and(
                      Expressions.greaterThanOrEqual("ordered_at", "2026-06-10T00:00:00+00:00"),
                      Expressions.lessThan("ordered_at", "2026-06-15T00:00:00+00:00")))));

  private final Path base;
  private final PrintWriter out;
  private final PrintWriter err;

  public SkippingBench(Path base, PrintWriter out, PrintWriter err) {
    this.base = base;
    this.out = out;
    this.err = err;
  }

  /** Runs every layout; false when a compaction did not commit or changed the live rows. */
  public boolean run() {
    FragmentedTable.Shape shape = new FragmentedTable.Shape(30, 5, 2500, 2, 6, 40, false);
    out.printf(Locale.ROOT, "%-34s %6s %9s", "layout", "files", "MB");
    PREDICATES.forEach(p -> out.printf(Locale.ROOT, "  %-26s", p.name() + ": files, MB"));
    out.println();
    boolean allKept = true;
    for (Layout layout : LAYOUTS) {
      Map<String, String> catalog =
          LocalWarehouse.catalogProperties(directory(LAYOUTS.indexOf(layout)));
      LiveRowChecksum before;
      try (TableAccess access = new TableAccess(catalog)) {
        before =
            LiveRowChecksum.of(
                FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape));
      }
      Map<String, String> options = new java.util.LinkedHashMap<>(layout.options());
      options.put("rewrite-all", "true");
      options.put("target-file-size-bytes", Long.toString(TARGET_FILE_SIZE));
      long started = System.nanoTime();
      // one worker: the whole table is one group, sorted in this JVM's whole heap
      JobResult result =
          new EmbeddedJobRunner(1, ProgressListener.NONE, EmbeddedJobRunner.GroupInterceptor.NONE)
              .run(new JobSpec(null, TABLE, catalog, options, null, null, null));
      err.printf(
          Locale.ROOT,
          "%s: %s in %.1f s%n",
          layout.name(),
          result.status(),
          (System.nanoTime() - started) / 1e9);
      try (TableAccess access = new TableAccess(catalog)) {
        Table table = access.loadTable(TABLE);
        boolean kept =
            result.status() == JobStatus.COMMITTED && LiveRowChecksum.of(table).equals(before);
        allKept &= kept;
        Scanned all = scan(table, Expressions.alwaysTrue());
        out.printf(
            Locale.ROOT,
            "%-34s %6d %9.1f",
            layout.name() + (kept ? "" : " (NOT KEPT)"),
            all.files(),
            all.mb());
        for (Predicate predicate : PREDICATES) {
          Scanned read = scan(table, predicate.filter());
          out.printf(
              Locale.ROOT,
              "  %-26s",
              String.format(
                  Locale.ROOT,
                  "%d, %.1f (%.0f%%)",
                  read.files(),
                  read.mb(),
                  100.0 * read.bytes() / Math.max(1, all.bytes())));
        }
        out.println();
      }
    }
    out.flush();
    return allKept;
  }

  private Path directory(int layout) {
    try {
      return java.nio.file.Files.createDirectories(base.resolve("skipping-" + layout));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Scanned(int files, long bytes) {
    double mb() {
      return bytes / 1e6;
    }
  }

  /** The data files Iceberg's scan planning keeps for {@code filter}, and their bytes. */
  private static Scanned scan(Table table, Expression filter) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().filter(filter).planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Scanned(
        tasks.size(), tasks.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum());
  }
}
