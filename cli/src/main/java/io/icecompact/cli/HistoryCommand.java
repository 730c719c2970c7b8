package io.icecompact.cli;

import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.cli.history.JobHistory;
import io.icecompact.cli.history.JobRecord;
import io.icecompact.core.job.JobJson;
import io.icecompact.lease.JobLogEntry;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact history}: a table's most recent jobs, newest first, from the deployed job log
 * or the jobs' work locations. Writes nothing. Exit 0 (an empty history too), 2 for bad flags or an
 * unknown table.
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description =
        "List a table's most recent compaction jobs, newest first, with status, counts and reason.")
final class HistoryCommand implements Callable<Integer> {
  @Mixin HistoryOptions source;

  @Option(
      names = "--limit",
      defaultValue = "20",
      paramLabel = "N",
      converter = WholeNumber.Positive.class,
      description = "Jobs listed, 1 or more (default: ${DEFAULT-VALUE})")
  int limit;

  @Option(names = "--json", description = "Print {\"table\", \"source\", \"jobs\": [...]} as JSON")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    String table = source.table();
    try (JobHistory history = source.open()) {
      List<JobLogEntry> jobs = history.recent(table, limit).stream().map(JobRecord::entry).toList();
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("table", table);
        doc.put("source", history.where(table));
        doc.put("jobs", jobs);
        out.println(JobJson.toPrettyJson(doc));
      } else if (jobs.isEmpty()) {
        out.println("No jobs of " + table + " in " + history.where(table));
      } else {
        print(out, jobs);
      }
      out.flush();
      return 0;
    }
  }

  static final String[] HEADER = {
    "started (UTC)", "job", "status", "took", "data files", "groups", "reason"
  };

  /**
   * One aligned row per job: data files rewritten -> added, the groups' outcomes, the error or
   * reason last.
   */
  static void print(PrintWriter out, List<JobLogEntry> jobs) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (JobLogEntry job : jobs) {
      rows.add(
          new String[] {
            startedAt(job),
            job.jobId(),
            job.status(),
            seconds(job.durationMillis()),
            dataFiles(job),
            groups(job),
            reason(job)
          });
    }
    AlignedTable.print(out, rows, Set.of(3));
  }

  /** The job's error or reason, then what its care steps refused or failed. */
  static String reason(JobLogEntry job) {
    String error = job.error() == null ? "" : job.error();
    if (job.care() == null) {
      return error;
    }
    return (error.isEmpty() ? "" : error + "; ") + "care: " + job.care();
  }

  static String startedAt(JobLogEntry job) {
    return Instant.ofEpochMilli(job.startedAtMillis()).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /**
   * Data files rewritten -> added; for a conversion, equality delete files converted -> position
   * delete files added (it rewrites no data file).
   */
  static String dataFiles(JobLogEntry job) {
    if (job.counts().isEmpty()) {
      return "-";
    }
    if (converts(job)) {
      return count(job, JobLogEntry.CONVERTED_EQUALITY_DELETE_FILES)
          + " eq deletes -> "
          + count(job, "added_position_delete_files_count")
          + " position deletes";
    }
    return count(job, "rewritten_data_files_count") + " -> " + count(job, "added_data_files_count");
  }

  private static boolean converts(JobLogEntry job) {
    return job.counts().containsKey(JobLogEntry.CONVERTED_EQUALITY_DELETE_FILES);
  }

  /** The groups' outcomes that happened, e.g. "3 rewritten, 1 failed"; "-" when none. */
  static String groups(JobLogEntry job) {
    List<String> parts = new ArrayList<>();
    for (String outcome : List.of("rewritten", "failed", "conflicted", "skipped")) {
      long n = count(job, outcome + "_groups");
      if (n > 0) {
        parts.add(n + " " + (outcome.equals("rewritten") && converts(job) ? "converted" : outcome));
      }
    }
    return parts.isEmpty() ? "-" : String.join(", ", parts);
  }

  static long count(JobLogEntry job, String name) {
    return job.counts().getOrDefault(name, 0L);
  }
}
