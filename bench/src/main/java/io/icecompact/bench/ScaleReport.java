package io.icecompact.bench;

import io.icecompact.core.job.PlanSummary;
import io.icecompact.worker.LiveTaskResolver;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints {@code bench --scale} as Markdown: one line per table as it is built, then at the end the
 * planner's table (a row per size), the committer's row and what the figures mean.
 */
final class ScaleReport {
  private static final String PLANNER_HEADER =
      "| files | day partitions | plan s (process s) | heap after GC, max | heap pool peaks | RSS peak"
          + " | groups (skipped) | files per group | plan index | group document largest / median"
          + " | a group's manifests | a worker reads |\n"
          + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
  private static final String COMMITTER_HEADER =
      "| input files replaced | groups | commit s (process s) | heap after GC, max | heap pool peaks | RSS peak"
          + " | status | committed snapshot (from the table's metadata) |\n"
          + "|---:|---:|---:|---:|---:|---:|---|---|";

  private final PrintWriter out;
  private final List<String> plannerRows = new ArrayList<>();
  private final List<String> committerRows = new ArrayList<>();

  ScaleReport(PrintWriter out) {
    this.out = out;
  }

  void table(ScaleBench.Built built) {
    out.printf(
        Locale.ROOT,
        "%,d-file table (v2, metadata only): %,d data files in %,d manifests counted from the current snapshot,"
            + " %,d day partitions, built by %d fast append(s) in %.1f s%n",
        built.files(),
        built.manifestFiles(),
        built.manifests(),
        built.days(),
        built.commits(),
        built.seconds());
    out.flush();
  }

  void planned(ScaleBench.PlanStep plan) {
    ScaleProbe.Figures f = plan.step().figures();
    String planned;
    if (f.error() != null) {
      planned = "failed: " + f.error() + " | | | | |";
    } else if (plan.documents() == null) {
      planned = "nothing to do: " + plan.summary().nothingToDo().reason() + " | | | | |";
    } else {
      PlanSummary summary = plan.summary();
      PlanDocuments documents = plan.documents();
      planned =
          String.format(
              Locale.ROOT,
              "%,d (%,d) | %,d | %s | %s | %s | %s",
              summary.groupCount(),
              summary.skippedGroups(),
              summary.inputFiles() / Math.max(1, summary.groupCount()),
              bytes(documents.indexBytes()),
              bytes(documents.largestGroupDocument())
                  + " / "
                  + bytes(documents.medianGroupDocument()),
              bytes(documents.crossCheckManifestBytes())
                  + (documents.crossChecked() ? " (cross-checked)" : " (not read)"),
              bytes(documents.largestWorkerRead()));
    }
    plannerRows.add(
        String.format(
            Locale.ROOT,
            "| %,d | %,d | %.1f (%.1f) | %s | %s | %s | %s |",
            plan.files(),
            MetadataOnlyTable.days(plan.files()),
            f.seconds(),
            plan.step().processSeconds(),
            heapAfterGc(f),
            bytes(f.heapPoolPeaks()),
            bytes(f.rssPeakBytes()),
            planned));
  }

  void committed(ScaleBench.CommitStep commit) {
    ScaleProbe.Figures f = commit.step().figures();
    String outcome;
    if (f.error() != null) {
      outcome = "failed (" + f.step() + " step): " + f.error() + " |";
    } else {
      ScaleBench.CommittedSnapshot s = commit.snapshot();
      outcome =
          String.format(
              Locale.ROOT,
              "%s%s | %s: %,d files replaced, %,d added, %,d live",
              commit.result().status().name().toLowerCase(Locale.ROOT),
              commit.result().verification().verified()
                  ? ", verified"
                  : ", NOT verified: " + commit.result().verification().problems(),
              s.operation(),
              s.removedFiles(),
              s.addedFiles(),
              s.liveFiles());
    }
    committerRows.add(
        String.format(
            Locale.ROOT,
            "| %,d | %,d | %.1f (%.1f) | %s | %s | %s | %s |",
            commit.plan().inputFiles(),
            commit.plan().groupCount(),
            f.seconds(),
            commit.step().processSeconds(),
            heapAfterGc(f),
            bytes(f.heapPoolPeaks()),
            bytes(f.rssPeakBytes()),
            outcome));
  }

  void footer(ScaleBench.Settings settings, int committedFiles) {
    out.printf("%n%s%n", PLANNER_HEADER);
    plannerRows.forEach(out::println);
    if (!committerRows.isEmpty()) {
      out.printf("%n%s%n", COMMITTER_HEADER);
      committerRows.forEach(out::println);
    }
    out.printf(
        Locale.ROOT,
        "%nEach step ran in a fresh JVM (%s); its time excludes the JVM's start (the process's time includes it)."
            + " Heap after GC = the most heap in use right after any garbage collection (GC notifications);"
            + " heap pool peaks = the sum of the heap pools' peak usage, garbage included. A group's manifests ="
            + " the manifests whose partitions overlap a group's, which its worker cross-checks the group against"
            + " when they are at most %s, and otherwise does not read. A worker reads the plan index, its own"
            + " group's document and those manifests if it cross-checks.",
        String.join(" ", settings.childJavaOptions()),
        bytes(LiveTaskResolver.CROSS_CHECK_MANIFEST_BYTES));
    if (!committerRows.isEmpty()) {
      out.printf(
          Locale.ROOT,
          " The committer ran on the %,d-file table's job, with synthetic worker results (one small output file"
              + " per group holding the group's rows) standing in for the workers: the input files exist only in"
              + " the table's metadata.",
          committedFiles);
    }
    out.println();
    out.flush();
  }

  private static String heapAfterGc(ScaleProbe.Figures f) {
    return f.collections() == 0 ? "(no GC)" : bytes(f.heapAfterGcMax());
  }

  static String bytes(long bytes) {
    if (bytes >= 1L << 30) {
      return String.format(Locale.ROOT, "%.2f GB", bytes / (double) (1L << 30));
    }
    if (bytes >= 1L << 20) {
      return String.format(Locale.ROOT, "%.1f MB", bytes / (double) (1L << 20));
    }
    return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
  }
}
