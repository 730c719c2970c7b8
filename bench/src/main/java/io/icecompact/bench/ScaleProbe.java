package io.icecompact.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.RewritePlanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The child JVM of {@code bench --scale}: runs one step on a table in a heap of its own and prints
 * its figures as one JSON line on stdout.
 *
 * <ul>
 *   <li>{@code plan SPEC_FILE}: {@link RewritePlanner#plan} of the {@link JobSpec} in the file,
 *       plan stored; the result is the plan summary.
 *   <li>{@code results REQUEST_FILE}: stores {@link SyntheticWorkerResults} for the planned job of
 *       the {@link CommitRequest} in the file (not measured: it stands in for the workers).
 *   <li>{@code commit REQUEST_FILE}: {@link JobCommitter#commit} of that request; the result is the
 *       job result.
 * </ul>
 *
 * Timed from the step's start to its end: the JVM's start and class loading before it are not
 * counted.
 */
public final class ScaleProbe {
  /** What one step took; {@code error} is set (and {@code result} null) when the step threw. */
  record Figures(
      String step,
      double seconds,
      long heapAfterGcMax,
      long heapPoolPeaks,
      long collections,
      long maxHeap,
      long rssPeakBytes,
      JsonNode result,
      String error) {}

  private ScaleProbe() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ScaleProbe plan|results|commit FILE");
      System.exit(2);
    }
    String step = args[0];
    byte[] request = Files.readAllBytes(Path.of(args[1]));
    GcHeapPeak heap = GcHeapPeak.start();
    long start = System.nanoTime();
    JsonNode result = null;
    String error = null;
    try {
      result = run(step, request);
    } catch (Throwable e) { // an OutOfMemoryError is a figure of this bench, not a crash
      e.printStackTrace();
      error = describe(e);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Figures figures =
        new Figures(
            step,
            seconds,
            heap.afterGcMax(),
            heap.poolPeaks(),
            heap.collections(),
            Runtime.getRuntime().maxMemory(),
            rssPeakBytes(),
            result,
            error);
    System.out.println(JobJson.toJson(figures));
    System.out.flush();
    System.exit(error == null ? 0 : 1);
  }

  private static JsonNode run(String step, byte[] request) {
    return switch (step) {
      case "plan" -> {
        JobSpec spec = JobJson.fromBytes(request, JobSpec.class, "job spec");
        try (TableAccess access = new TableAccess(spec.catalogProperties())) {
          yield JobJson.mapper().valueToTree(new RewritePlanner(access).plan(spec));
        }
      }
      case "results" -> {
        CommitRequest job = JobJson.fromBytes(request, CommitRequest.class, "commit request");
        try (TableAccess access = new TableAccess(job.catalogProperties())) {
          yield JobJson.mapper().valueToTree(SyntheticWorkerResults.store(access, job));
        }
      }
      case "commit" -> {
        CommitRequest job = JobJson.fromBytes(request, CommitRequest.class, "commit request");
        try (TableAccess access = new TableAccess(job.catalogProperties())) {
          yield JobJson.mapper().valueToTree(new JobCommitter(access).commit(job));
        }
      }
      default ->
          throw new IllegalArgumentException(
              "Unknown step '" + step + "': plan, results or commit");
    };
  }

  /**
   * The error, and what caused it when that was something else (an OutOfMemoryError in a planning
   * thread).
   */
  static String describe(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == error ? error.toString() : error + ", caused by " + root;
  }

  /** The process's peak resident set (Linux's VmHWM); 0 where /proc is not there. */
  private static long rssPeakBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          List<String> parts = List.of(line.trim().split("\\s+"));
          return Long.parseLong(parts.get(1)) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
