package io.icecompact.cli;

import io.icecompact.cli.flags.JobId;
import io.icecompact.cli.history.JobHistory;
import io.icecompact.cli.history.JobNotFoundException;
import io.icecompact.cli.history.JobRecord;
import io.icecompact.core.job.JobJson;
import io.icecompact.lease.JobLogEntry;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code icecompact status}: how one job ended, from the deployed job log or the job's work
 * location: status, counts, the groups' outcomes and the reason. Writes nothing. Exit 0 when the
 * job is found, whatever its status; 2 when it is not (the message names the job, the table and
 * where it looked), when it is a job of another table sharing the location, when its stored result
 * cannot be parsed, or for bad flags.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Show how one compaction job ended: status, counts, the groups' outcomes and the reason.")
final class StatusCommand implements Callable<Integer> {
  @Mixin HistoryOptions source;

  @Option(
      names = "--job-id",
      required = true,
      paramLabel = "ID",
      converter = JobId.class,
      description = "The job's id, as history lists it")
  String jobId;

  @Option(
      names = "--json",
      description = "Print {\"job\": <log entry>, \"result\": <whole result or null>} as JSON")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    String table = source.table();
    try (JobHistory history = source.open()) {
      JobRecord job =
          history
              .find(table, jobId)
              .orElseThrow(() -> new JobNotFoundException(jobId, table, history.where(table)));
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("job", job.entry());
        doc.put("result", job.result());
        out.println(JobJson.toPrettyJson(doc));
      } else {
        print(out, job);
      }
      out.flush();
      return 0;
    }
  }

  static void print(PrintWriter out, JobRecord job) {
    JobLogEntry entry = job.entry();
    out.printf(Locale.ROOT, "%s %s: %s%n", entry.table(), entry.jobId(), entry.status());
    out.printf(
        Locale.ROOT,
        "  started %s, took %s%n",
        HistoryCommand.startedAt(entry),
        HistoryCommand.seconds(entry.durationMillis()));
    if (entry.executionArn() != null) {
      out.println("  execution: " + entry.executionArn());
    }
    if (entry.error() != null) {
      out.println("  " + entry.error());
    } else if (job.result() != null && job.result().reason() != null) {
      out.println("  " + job.result().reason());
    }
    if (!entry.snapshotIds().isEmpty()) {
      out.println("  snapshot(s): " + entry.snapshotIds());
    }
    if (!entry.counts().isEmpty()) {
      out.printf(
          Locale.ROOT,
          "  data files: %d rewritten -> %d added (%s read), %d delete files removed, %d failed%n",
          HistoryCommand.count(entry, "rewritten_data_files_count"),
          HistoryCommand.count(entry, "added_data_files_count"),
          ResultPrinter.bytes(HistoryCommand.count(entry, "rewritten_bytes_count")),
          HistoryCommand.count(entry, "removed_delete_files_count"),
          HistoryCommand.count(entry, "failed_data_files_count"));
      out.println("  groups: " + HistoryCommand.groups(entry));
    }
    if (job.result() != null) {
      ResultPrinter.printGroupOutcomes(job.result(), out);
    }
    if (entry.resultLocation() != null) {
      out.println("  result: " + entry.resultLocation());
    }
  }
}
