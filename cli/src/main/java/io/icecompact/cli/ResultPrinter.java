package io.icecompact.cli;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import java.io.PrintWriter;
import java.util.Locale;

/** The human summary of a job result. */
final class ResultPrinter {
  private ResultPrinter() {}

  static void print(JobResult result, PrintWriter out) {
    out.printf(Locale.ROOT, "%s %s: %s in %.2f s%n",
        result.table(), result.jobId(), result.status(), result.durationMillis() / 1000.0);
    if (result.reason() != null) {
      out.println("  " + result.reason());
    }
    if (!result.snapshotIds().isEmpty()) {
      out.println("  snapshot(s): " + result.snapshotIds());
    }
    if (result.groups().isEmpty()) {
      return;
    }
    out.printf(Locale.ROOT, "  data files: %d rewritten -> %d added (%s read), %d delete files removed, %d failed%n",
        result.rewrittenDataFilesCount(), result.addedDataFilesCount(),
        bytes(result.rewrittenBytesCount()), result.removedDeleteFilesCount(), result.failedDataFilesCount());
    out.printf(Locale.ROOT, "  groups: %d rewritten, %d failed, %d conflicted, %d skipped%n",
        result.rewrittenGroups(), result.failedGroups(), result.conflictedGroups(), result.skippedGroups());
    for (GroupOutcome group : result.groups()) {
      if (group.status() != GroupOutcome.Status.REWRITTEN) {
        out.printf("  group %d %s: %s: %s%n", group.groupIndex(), group.partition(), group.status(), group.reason());
      }
    }
    if (!result.verification().verified()) {
      out.println("  VERIFICATION FAILED against table metadata:");
      result.verification().problems().forEach(p -> out.println("    " + p));
    }
  }

  static String bytes(long bytes) {
    if (bytes < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
  }
}
