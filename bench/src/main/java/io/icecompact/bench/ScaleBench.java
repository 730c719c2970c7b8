package io.icecompact.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LocalWarehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * {@code bench --scale}: per size, builds a {@link MetadataOnlyTable}, plans it with the planner
 * stage in a fresh JVM of a bounded heap, and measures the stored plan's documents. On the smallest
 * size it also commits the planned job in a fresh JVM, with {@link SyntheticWorkerResults} standing
 * in for the workers, and reads the committed snapshot back from the table's metadata.
 */
public final class ScaleBench {
  static final String TABLE = "bench.scale";

  /**
   * What to run: table sizes in files, and the JVM options of the planner's and committer's
   * processes.
   */
  public record Settings(List<Integer> files, List<String> childJavaOptions) {}

  private final Path base;
  private final Settings settings;
  private final ScaleReport report;
  private final PrintWriter err;
  private boolean allDone = true;

  public ScaleBench(Path base, Settings settings, PrintWriter out, PrintWriter err) {
    this.base = base;
    this.settings = settings;
    this.report = new ScaleReport(out);
    this.err = err;
  }

  /**
   * Runs every size; false when a step failed or the committed snapshot is not what the job meant.
   */
  public boolean run() {
    int committed = settings.files().stream().min(Comparator.naturalOrder()).orElseThrow();
    PlanStep toCommit = null;
    for (int files : settings.files()) {
      Map<String, String> catalog = LocalWarehouse.catalogProperties(directory("scale-" + files));
      report.table(build(catalog, files));
      PlanStep plan = plan(catalog, files);
      report.planned(plan);
      if (files == committed) {
        toCommit = plan;
      }
    }
    if (toCommit.summary() != null && toCommit.documents() != null) {
      report.committed(
          commit(LocalWarehouse.catalogProperties(directory("scale-" + committed)), toCommit));
    }
    report.footer(settings, committed);
    return allDone;
  }

  /** The table as built, counted from its manifests. */
  record Built(
      int files, int days, long manifestFiles, int manifests, int commits, double seconds) {}

  private Built build(Map<String, String> catalog, int files) {
    long start = System.nanoTime();
    try (TableAccess access = new TableAccess(catalog)) {
      Table table = MetadataOnlyTable.create(access.catalog(), TableIdentifier.parse(TABLE), files);
      double seconds = (System.nanoTime() - start) / 1e9;
      Snapshot current = table.currentSnapshot();
      long counted = 0;
      List<ManifestFile> manifests = current.dataManifests(table.io());
      for (ManifestFile manifest : manifests) {
        counted += manifest.addedFilesCount() + manifest.existingFilesCount();
      }
      err.printf(Locale.ROOT, "built the %,d-file table in %.1f s%n", files, seconds);
      err.flush();
      int commits =
          (files + MetadataOnlyTable.FILES_PER_COMMIT - 1) / MetadataOnlyTable.FILES_PER_COMMIT;
      return new Built(
          files, MetadataOnlyTable.days(files), counted, manifests.size(), commits, seconds);
    }
  }

  /** The planner's figures, and the stored plan's documents when it planned. */
  record PlanStep(
      int files, Step step, PlanSummary summary, PlanDocuments documents, JobSpec spec) {}

  private PlanStep plan(Map<String, String> catalog, int files) {
    err.printf(
        Locale.ROOT,
        "planning the %,d-file table in a fresh JVM (%s)...%n",
        files,
        String.join(" ", settings.childJavaOptions()));
    err.flush();
    JobSpec spec = new JobSpec(JobSpec.newJobId(), TABLE, catalog, Map.of(), null, null, null);
    Step step = step("plan", spec, files);
    if (step.figures().error() != null) {
      allDone = false;
      return new PlanStep(files, step, null, null, spec);
    }
    PlanSummary summary = read(step.figures().result(), PlanSummary.class);
    if (!summary.planned()) {
      allDone = false;
      return new PlanStep(files, step, summary, null, spec);
    }
    try (TableAccess access = new TableAccess(catalog)) {
      return new PlanStep(files, step, summary, PlanDocuments.measure(access, summary), spec);
    }
  }

  /** The committer's figures and what the committed snapshot says. */
  record CommitStep(
      int files, PlanSummary plan, Step step, JobResult result, CommittedSnapshot snapshot) {}

  /** A replace snapshot as the table's metadata records it. */
  record CommittedSnapshot(
      long snapshotId, String operation, long removedFiles, long addedFiles, long liveFiles) {}

  private CommitStep commit(Map<String, String> catalog, PlanStep plan) {
    CommitRequest request = CommitRequest.of(plan.spec(), plan.summary());
    err.printf(
        Locale.ROOT,
        "storing synthetic worker results for %,d groups...%n",
        plan.summary().groupCount());
    err.flush();
    Step results = step("results", request, plan.files());
    if (results.figures().error() != null) {
      allDone = false;
      return new CommitStep(plan.files(), plan.summary(), results, null, null);
    }
    err.printf(
        Locale.ROOT,
        "committing %,d replaced files in a fresh JVM...%n",
        plan.summary().inputFiles());
    err.flush();
    Step step = step("commit", request, plan.files());
    if (step.figures().error() != null) {
      allDone = false;
      return new CommitStep(plan.files(), plan.summary(), step, null, null);
    }
    JobResult result = read(step.figures().result(), JobResult.class);
    CommittedSnapshot snapshot;
    try (TableAccess access = new TableAccess(catalog)) {
      Snapshot current = access.loadTable(TABLE).currentSnapshot();
      snapshot =
          new CommittedSnapshot(
              current.snapshotId(),
              current.operation(),
              count(current, SnapshotSummary.DELETED_FILES_PROP),
              count(current, SnapshotSummary.ADDED_FILES_PROP),
              count(current, SnapshotSummary.TOTAL_DATA_FILES_PROP));
    }
    boolean expected =
        result.snapshotIds().equals(List.of(snapshot.snapshotId()))
            && "replace".equals(snapshot.operation())
            && snapshot.removedFiles() == plan.summary().inputFiles()
            && snapshot.addedFiles() == plan.summary().groupCount()
            && snapshot.liveFiles()
                == plan.files() - plan.summary().inputFiles() + plan.summary().groupCount();
    allDone &= expected;
    return new CommitStep(plan.files(), plan.summary(), step, result, snapshot);
  }

  private static long count(Snapshot snapshot, String property) {
    String value = snapshot.summary().get(property);
    return value == null ? -1 : Long.parseLong(value);
  }

  /** A step run in a child JVM: its own figures, and how long the whole process took. */
  record Step(ScaleProbe.Figures figures, double processSeconds) {}

  private Step step(String name, Object request, int files) {
    Path requestFile = directory("scale-" + files).resolve(name + "-request.json");
    try {
      Files.write(requestFile, JobJson.toBytes(request));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChildJvm.Outcome outcome =
        ChildJvm.run(
            settings.childJavaOptions(), ScaleProbe.class, List.of(name, requestFile.toString()));
    String last =
        outcome.out().lines().filter(line -> line.startsWith("{")).reduce((a, b) -> b).orElse(null);
    if (last == null) {
      // killed before it could print (e.g. the JVM could not start with these options)
      return new Step(
          new ScaleProbe.Figures(
              name,
              outcome.seconds(),
              0,
              0,
              0,
              0,
              0,
              null,
              "exit " + outcome.exitCode() + ": " + lastLines(outcome.err())),
          outcome.seconds());
    }
    ScaleProbe.Figures figures = read(JobJson.tree(last), ScaleProbe.Figures.class);
    if (figures.error() != null) {
      err.printf(
          Locale.ROOT,
          "the %s step failed: %s%n%s%n",
          name,
          figures.error(),
          stackTraceHead(outcome.err()));
      err.flush();
    }
    return new Step(figures, outcome.seconds());
  }

  /** The first lines of the child's stack trace: where the step failed. */
  private static String stackTraceHead(String text) {
    List<String> lines = text.lines().toList();
    int start = 0;
    while (start < lines.size() && !lines.get(start).matches("^\\S+(Exception|Error)(: .*)?$")) {
      start++;
    }
    return start == lines.size()
        ? lastLines(text)
        : String.join("\n", lines.subList(start, Math.min(lines.size(), start + 8)));
  }

  private static String lastLines(String text) {
    List<String> lines = text.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
  }

  private static <T> T read(JsonNode node, Class<T> type) {
    try {
      return JobJson.mapper().treeToValue(node, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path directory(String name) {
    try {
      return Files.createDirectories(base.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
