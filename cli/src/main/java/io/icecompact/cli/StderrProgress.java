package io.icecompact.cli;

import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.engine.ProgressListener;
import java.io.PrintWriter;

/** Progress lines on stderr, so stdout carries only the result. */
final class StderrProgress implements ProgressListener {
  private final PrintWriter err;

  StderrProgress(PrintWriter err) {
    this.err = err;
  }

  @Override
  public void planned(PlanSummary summary) {
    if (!summary.planned()) {
      err.println("planned: nothing to do");
    } else {
      err.printf(
          "planned %s: %d groups, %d files, %s, pinned snapshot %d%n",
          summary.jobId(),
          summary.groupCount(),
          summary.inputFiles(),
          ResultPrinter.bytes(summary.inputBytes()),
          summary.pinned().snapshotId());
    }
  }

  @Override
  public void groupDone(GroupStatus status, int done, int total) {
    err.printf(
        "[%d/%d] group %d: %d rows (%d deleted) -> %d files%n",
        done,
        total,
        status.groupIndex(),
        status.inputRows(),
        status.deletedRows(),
        status.outputFiles());
  }

  @Override
  public void groupFailed(GroupFailure failure, int done, int total) {
    err.printf(
        "[%d/%d] group %d FAILED: %s: %s%n",
        done, total, failure.groupIndex(), failure.errorType(), failure.message());
  }

  @Override
  public void groupRetry(int groupIndex, int attempt, String cause) {
    err.printf("group %d: retrying (attempt %d) after %s%n", groupIndex, attempt, cause);
  }

  @Override
  public void committing() {
    err.println("committing...");
  }
}
