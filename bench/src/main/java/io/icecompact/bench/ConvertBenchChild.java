package io.icecompact.bench;

import io.icecompact.cli.ExitFigures;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * One contender of {@code bench convert} in its own JVM: {@code rewrite} (the compaction of the
 * whole table), {@code convert} (convert-equality-deletes) or {@code scan} (a full read with
 * Iceberg's generic reader, counting rows). It prints one {@value #PREFIX} line of what it measured
 * from inside (the action's wall time, bytes read and streams opened by kind through {@link
 * CountingFileIO}, the process's {@code rchar}, the heap) and, for a job, its result as one JSON
 * line after {@value #RESULT}; the CPU time and peak RSS of the whole process come at exit ({@link
 * ExitFigures}).
 *
 * <p>A job action ending in {@value #WARM} first runs the same job on a copy of the table
 * registered in the catalog (the same metadata, dropped from the catalog after, its files kept),
 * then measures the job on the table itself: code compiled and classes loaded, as in a reused
 * Lambda worker. The process's CPU at exit then holds both jobs; the job's own figures hold the
 * measured one only.
 *
 * <p>Arguments: ACTION TABLE WORKERS then catalog properties as KEY=VALUE, then {@code --} and job
 * options as KEY=VALUE.
 */
final class ConvertBenchChild {
  static final String PREFIX = "convert-bench-child:";
  static final String RESULT = "convert-bench-result:";
  static final String WARM = "-warm";

  private ConvertBenchChild() {}

  public static void main(String[] args) throws IOException {
    ExitFigures.reportAtExitIfAsked();
    String action = args[0];
    String tableName = args[1];
    int workers = Integer.parseInt(args[2]);
    Map<String, String> catalog = new LinkedHashMap<>();
    Map<String, String> options = new LinkedHashMap<>();
    Map<String, String> into = catalog;
    for (int i = 3; i < args.length; i++) {
      if ("--".equals(args[i])) {
        into = options;
        continue;
      }
      String[] pair = args[i].split("=", 2);
      into.put(pair[0], pair[1]);
    }
    catalog.put("io-impl", CountingFileIO.class.getName());
    GcHeapPeak heap = GcHeapPeak.start();
    long rows = -1;
    JobResult result = null;
    long start;
    long cpuStart;
    boolean warm = action.endsWith(WARM);
    String job = warm ? action.substring(0, action.length() - WARM.length()) : action;
    try (TableAccess access = new TableAccess(catalog)) {
      Table table = access.loadTable(tableName);
      if (warm) {
        warmUp(access, tableName, table, job, workers, catalog, options);
      }
      classifyFiles(table);
      CountingFileIO.reset();
      start = System.nanoTime();
      cpuStart = ExitFigures.cpuNanos();
      if ("scan".equals(job)) {
        rows = scan(table);
      } else {
        result = runJob(tableName, job, workers, catalog, options);
      }
    }
    long actionNanos = System.nanoTime() - start;
    // the action's own CPU: the process's without its JVM start and the table's loading
    long actionCpuNanos = ExitFigures.cpuNanos() - cpuStart;
    System.out.printf(
        Locale.ROOT,
        "%s action-ns=%d action-cpu-ns=%d rows=%d data-bytes=%d delete-bytes=%d other-bytes=%d data-opens=%d"
            + " delete-opens=%d other-opens=%d rchar=%d heap-after-gc=%d heap-pool-peak=%d%n",
        PREFIX,
        actionNanos,
        actionCpuNanos,
        rows,
        CountingFileIO.bytesRead(CountingFileIO.Kind.DATA),
        CountingFileIO.bytesRead(CountingFileIO.Kind.DELETE),
        CountingFileIO.bytesRead(CountingFileIO.Kind.OTHER),
        CountingFileIO.streamsOpened(CountingFileIO.Kind.DATA),
        CountingFileIO.streamsOpened(CountingFileIO.Kind.DELETE),
        CountingFileIO.streamsOpened(CountingFileIO.Kind.OTHER),
        rchar(),
        heap.afterGcMax(),
        heap.poolPeaks());
    if (result != null) {
      System.out.println(RESULT + " " + JobJson.mapper().writeValueAsString(result));
    }
    System.out.flush();
  }

  private static JobResult runJob(
      String tableName,
      String job,
      int workers,
      Map<String, String> catalog,
      Map<String, String> options) {
    JobSpec spec = new JobSpec(null, tableName, catalog, options, null, null, null);
    if ("convert".equals(job)) {
      spec = spec.withAction(JobAction.CONVERT_EQUALITY_DELETES);
    }
    return new EmbeddedJobRunner(workers, ProgressListener.NONE).run(spec);
  }

  /**
   * Runs {@code job} on a copy of {@code table} registered beside it, then drops the copy from the
   * catalog only (its files stay: they share the table's location, and the bench copies the table
   * afresh before each run).
   */
  private static void warmUp(
      TableAccess access,
      String tableName,
      Table table,
      String job,
      int workers,
      Map<String, String> catalog,
      Map<String, String> options) {
    TableIdentifier copy = TableIdentifier.parse(tableName + "_warmup");
    access
        .catalog()
        .registerTable(
            copy, ((HasTableOperations) table).operations().current().metadataFileLocation());
    try {
      JobResult warmUp = runJob(copy.toString(), job, workers, catalog, options);
      if (!warmUp.status().success()) {
        throw new IllegalStateException("The warm-up job did not succeed: " + warmUp.reason());
      }
    } finally {
      access.catalog().dropTable(copy, false);
    }
  }

  /** Every row of the table, every delete applied, as a reader that is not Spark reads it. */
  private static long scan(Table table) throws IOException {
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record ignored : records) {
        rows++;
      }
    }
    return rows;
  }

  private static void classifyFiles(Table table) throws IOException {
    Set<String> data = new HashSet<>();
    Set<String> deletes = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        data.add(task.file().location());
        task.deletes().stream().map(ContentFile::location).forEach(deletes::add);
      }
    }
    CountingFileIO.classify(data, deletes);
  }

  /** Bytes this process read through read(2) and the like, from anything (jars included). */
  private static long rchar() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("rchar:")) {
          return Long.parseLong(line.substring("rchar:".length()).trim());
        }
      }
    } catch (IOException | UncheckedIOException | NumberFormatException e) {
      // not Linux: no figure
    }
    return -1;
  }
}
