package io.icecompact.cli.bench;

import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.worker.RewritePathChoice;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code icecompact compact} in a new JVM, started from the bench's own java and classpath as
 * {@code ./icecompact} starts it: the target is the whole job in a fresh process, JVM start and class
 * loading included. Stages are timed by when the command's progress lines arrive on stderr
 * ("planned ...", "committing..."); the result is the command's {@code --json} output.
 */
final class FreshProcessJob {
  private final List<String> javaOptions;

  FreshProcessJob(List<String> javaOptions) {
    this.javaOptions = javaOptions;
  }

  /** Seconds a fresh JVM takes to print {@code icecompact --version}: the floor of any command. */
  double startupSeconds() {
    long start = System.nanoTime();
    Process process = start(List.of("--version"));
    String out = drain(process);
    if (waitFor(process) != 0) {
      throw new IllegalStateException("'icecompact --version' failed in a fresh JVM:\n" + out);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  JobRunFigures run(Map<String, String> catalog, String table, RewritePathChoice path, int workers) {
    List<String> args = new ArrayList<>(List.of("compact", "--table", table, "--workers", Integer.toString(workers),
        "--json", "--rewrite-path", path.name()));
    catalog.forEach((key, value) -> args.addAll(List.of("-c", key + "=" + value)));
    long start = System.nanoTime();
    Process process = start(args);
    long[] planned = {0};
    long[] committing = {0};
    StringBuilder err = new StringBuilder();
    Thread stderr =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  if (line.startsWith("planned") && planned[0] == 0) {
                    planned[0] = System.nanoTime();
                  } else if (line.startsWith("committing")) {
                    committing[0] = System.nanoTime();
                  }
                  err.append(line).append('\n');
                }
              } catch (IOException e) {
                err.append(e);
              }
            },
            "fresh-compact-stderr");
    stderr.start();
    String out = drain(process);
    int exit = waitFor(process);
    long end = System.nanoTime();
    try {
      stderr.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (exit != 0) {
      throw new IllegalStateException("The fresh compact exited with " + exit + ":\n" + err + out);
    }
    JobResult result;
    try {
      result = JobJson.mapper().readValue(out, JobResult.class);
    } catch (IOException e) {
      throw new IllegalStateException("The fresh compact printed no JSON result:\n" + err + out, e);
    }
    if (committing[0] == 0) {
      // nothing planned: the whole time was planning
      committing[0] = planned[0] = end;
    }
    return new JobRunFigures(
        (planned[0] - start) / 1e9, (committing[0] - planned[0]) / 1e9, (end - committing[0]) / 1e9, result, List.of());
  }

  private Process start(List<String> args) {
    return ChildJvm.start(javaOptions, "io.icecompact.cli.IcecompactCli", args);
  }

  private static String drain(Process process) {
    return ChildJvm.drain(process.getInputStream());
  }

  private static int waitFor(Process process) {
    try {
      return process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }
}
