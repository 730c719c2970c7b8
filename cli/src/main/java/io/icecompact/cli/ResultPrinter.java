package io.icecompact.cli;

import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.rewrite.RewritePath;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The human summary of a job result. */
final class ResultPrinter {
  private ResultPrinter() {}

  static void print(JobResult result, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%s %s: %s in %.2f s%n",
        result.table(),
        result.jobId(),
        result.status(),
        result.durationMillis() / 1000.0);
    if (result.reason() != null) {
      out.println("  " + result.reason());
    }
    if (!result.snapshotIds().isEmpty()) {
      out.println("  snapshot(s): " + result.snapshotIds());
    }
    if (result.groups().isEmpty()) {
      return;
    }
    if (result.conversion() != null) {
      printConversion(result, out);
      return;
    }
    out.printf(
        Locale.ROOT,
        "  data files: %d rewritten -> %d added (%s read), %d delete files removed, %d failed%n",
        result.rewrittenDataFilesCount(),
        result.addedDataFilesCount(),
        bytes(result.rewrittenBytesCount()),
        result.removedDeleteFilesCount(),
        result.failedDataFilesCount());
    printGroups(result, "rewritten", out);
  }

  /** The groups' counts, the commit's attempts, and each group that did not end done. */
  private static void printGroups(JobResult result, String done, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "  groups: %d %s, %d failed, %d conflicted, %d lost the commit race, %d skipped%n",
        result.rewrittenGroups(),
        done,
        result.failedGroups(),
        result.conflictedGroups(),
        result.groups().stream().filter(g -> g.status() == GroupOutcome.Status.CONTENDED).count(),
        result.skippedGroups());
    if (result.commit() != null) {
      out.println("  commit: " + CommitAttempts.line(result.commit()));
    }
    printGroupOutcomes(result, out);
  }

  /**
   * The rewrite paths taken, each group that did not end rewritten and why, and a failed
   * verification.
   */
  static void printGroupOutcomes(JobResult result, PrintWriter out) {
    if (result.groups() != null) {
      printPaths(out, result);
      for (GroupOutcome group : result.groups()) {
        boolean done =
            group.status() == GroupOutcome.Status.REWRITTEN
                || (group.status() == GroupOutcome.Status.CONVERTED && group.reason() == null);
        if (!done) {
          out.printf(
              "  group %d %s: %s: %s%n",
              group.groupIndex(), group.partition(), group.status(), group.reason());
        }
      }
    }
    if (result.verification() != null && !result.verification().verified()) {
      out.println("  VERIFICATION FAILED against table metadata:");
      result.verification().problems().forEach(p -> out.println("    " + p));
    }
  }

  /** A {@code convert-equality-deletes} job: what it converted, kept and read. */
  private static void printConversion(JobResult result, PrintWriter out) {
    JobResult.Conversion conversion = result.conversion();
    out.printf(
        Locale.ROOT,
        "  equality delete files: %d converted, %d kept (they still apply to data files not"
            + " converted); %d position delete files added (%d rows) for %d data files, none"
            + " rewritten; %s of data files read%n",
        conversion.convertedEqualityDeleteFilesCount(),
        conversion.keptEqualityDeleteFilesCount(),
        conversion.addedPositionDeleteFilesCount(),
        conversion.deletedPositionsCount(),
        conversion.convertedDataFilesCount(),
        bytes(conversion.bytesReadCount()));
    printGroups(result, "converted", out);
  }

  /** How many groups took each rewrite path, and why the first generic one did. */
  private static void printPaths(PrintWriter out, JobResult result) {
    Map<String, Long> paths = new TreeMap<>();
    String genericReason = null;
    for (GroupOutcome group : result.groups()) {
      if (group.rewritePath() != null) {
        paths.merge(group.rewritePath(), 1L, Long::sum);
        if (genericReason == null && RewritePath.GENERIC.equals(group.rewritePath())) {
          genericReason = "group " + group.groupIndex() + ": " + group.rewritePathReason();
        }
      }
    }
    if (!paths.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "  rewrite paths: %s%s%n",
          paths,
          genericReason == null ? "" : " (first generic " + genericReason + ")");
    }
  }

  static String bytes(long bytes) {
    if (bytes < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
  }
}
