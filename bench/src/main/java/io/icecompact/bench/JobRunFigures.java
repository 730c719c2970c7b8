package io.icecompact.bench;

import io.icecompact.cli.ExitFigures;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one whole {@code compact} job measured: wall seconds of its stages (the first includes the
 * JVM's start in a fresh process), the job's result, the workers' own time per group as each stored
 * it in its result, and the process's CPU seconds and peak RSS (NaN where not measured). A fresh
 * process that ended without a job result has a null result and says why in {@code failure}.
 */
record JobRunFigures(
    double planSeconds,
    double rewriteSeconds,
    double commitSeconds,
    JobResult result,
    List<Long> groupMillis,
    ExitFigures process,
    String failure) {

  JobRunFigures(
      double planSeconds,
      double rewriteSeconds,
      double commitSeconds,
      JobResult result,
      List<Long> groupMillis) {
    this(planSeconds, rewriteSeconds, commitSeconds, result, groupMillis, ExitFigures.NONE, null);
  }

  JobRunFigures withGroupMillis(List<Long> millis) {
    return new JobRunFigures(
        planSeconds, rewriteSeconds, commitSeconds, result, millis, process, failure);
  }

  JobRunFigures withProcess(ExitFigures figures) {
    return new JobRunFigures(
        planSeconds, rewriteSeconds, commitSeconds, result, groupMillis, figures, failure);
  }

  double totalSeconds() {
    return planSeconds + rewriteSeconds + commitSeconds;
  }

  /** Median and 90th percentile of the groups' own time, e.g. "41 / 77". */
  String groupMillisText() {
    if (groupMillis.isEmpty()) {
      return "-";
    }
    List<Long> sorted = new ArrayList<>(groupMillis);
    sorted.sort(null);
    return String.format(
        Locale.ROOT,
        "%d / %d",
        sorted.get(sorted.size() / 2),
        sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(sorted.size() * 0.9) - 1)));
  }

  String pathsText() {
    if (result == null) {
      return "-";
    }
    RewritePathTally tally = new RewritePathTally();
    for (GroupOutcome group : result.groups()) {
      if (group.status() == GroupOutcome.Status.REWRITTEN) {
        tally.add(group.rewritePath(), group.rewritePathReason());
      } else {
        // failed, conflicted or not committed: why, in brief (a worker out of heap names its heap)
        // the same reason for every group: counted together
        String reason =
            group.reason() == null
                ? ""
                : group
                    .reason()
                    .replace('|', '/')
                    .replaceAll("\\s+", " ")
                    .replaceAll("\\bGroup \\d+\\b", "A group");
        tally.add(
            group.status().name().toLowerCase(Locale.ROOT),
            reason.length() > 120 ? reason.substring(0, 117) + "..." : reason);
      }
    }
    return tally.toString();
  }

  /** The results the job's workers stored in its work location. */
  static List<GroupResult> groupResults(
      TableAccess access, String tableLocation, String table, JobResult result) {
    if (result == null) {
      return List.of();
    }
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = WorkLocation.of(null, tableLocation, table, result.jobId());
    List<GroupResult> results = new ArrayList<>();
    for (GroupOutcome group : result.groups()) {
      store.readGroupResult(work, group.groupIndex()).ifPresent(results::add);
    }
    return results;
  }
}
