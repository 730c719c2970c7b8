package io.icecompact.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.cli.ExitFigures;
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
import java.util.Optional;

/**
 * {@code icecompact compact} in a new JVM, started from the bench's own java and classpath as
 * {@code ./icecompact} starts it: the target is the whole job in a fresh process, JVM start and
 * class loading included. Stages are timed by when the command's progress lines arrive on stderr
 * ("planned ...", "committing..."); the result is the command's {@code --json} output; the child's
 * CPU time and peak RSS are the line it prints at exit ({@link ExitFigures}).
 */
final class FreshProcessJob {
  /** The class path of the fresh process, when not this JVM's: the CLI's jar. */
  static final String CLI_CLASS_PATH = "icecompact.bench.cli-class-path";

  private final List<String> javaOptions;

  FreshProcessJob(List<String> javaOptions) {
    this.javaOptions = javaOptions;
  }

  /** Seconds a fresh JVM takes to print {@code icecompact --version}: the floor of any command. */
  double startupSeconds() {
    long start = System.nanoTime();
    Process process = start(List.of("--version"), false);
    String out = drain(process);
    if (waitFor(process) != 0) {
      throw new IllegalStateException("'icecompact --version' failed in a fresh JVM:\n" + out);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * The whole job in a new JVM, which reports its own CPU time and peak RSS at exit ({@link
   * ExitFigures}). A job that ended without success still gives its result (the row says how it
   * ended); a process that printed no result gives a null result and its last error line.
   */
  JobRunFigures run(
      Map<String, String> catalog, String table, RewritePathChoice path, int workers) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "compact",
                "--table",
                table,
                "--workers",
                Integer.toString(workers),
                "--json",
                "--rewrite-path",
                path.name()));
    catalog.forEach((key, value) -> args.addAll(List.of("-c", key + "=" + value)));
    long start = System.nanoTime();
    Process process = start(args, true);
    long[] planned = {0};
    long[] committing = {0};
    ExitFigures[] exitFigures = {ExitFigures.NONE};
    StringBuilder err = new StringBuilder();
    Thread stderr =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  if (line.startsWith("planned") && planned[0] == 0) {
                    planned[0] = System.nanoTime();
                  } else if (line.startsWith("committing")) {
                    committing[0] = System.nanoTime();
                  }
                  Optional<ExitFigures> figures = ExitFigures.parse(line);
                  if (figures.isPresent()) {
                    exitFigures[0] = figures.get();
                  } else {
                    err.append(line).append('\n');
                  }
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
    JobResult result = null;
    try {
      result = JobJson.mapper().readValue(out, JobResult.class);
    } catch (IOException e) {
      if (exit == 0) {
        throw new IllegalStateException(
            "The fresh compact printed no JSON result:\n" + err + out, e);
      }
    }
    if (result != null && result.status() == null) {
      // the JSON error object of a command that failed before it had a job result
      result = null;
    }
    if (planned[0] == 0) {
      planned[0] = end;
    }
    if (committing[0] == 0) {
      // nothing planned, or it ended before committing: the rest was rewriting
      committing[0] = end;
    }
    String failure = result != null ? null : "exit " + exit + ": " + lastError(err.toString(), out);
    return new JobRunFigures(
        (planned[0] - start) / 1e9,
        (committing[0] - planned[0]) / 1e9,
        (end - committing[0]) / 1e9,
        result,
        List.of(),
        exitFigures[0],
        failure);
  }

  /**
   * Why a process that printed no job result failed: its {@code error:} line on stderr, else the
   * message of the JSON error it printed, else its last line.
   */
  private static String lastError(String err, String out) {
    List<String> errors = err.lines().filter(line -> line.startsWith("error:")).toList();
    if (!errors.isEmpty()) {
      return errors.get(errors.size() - 1).substring("error:".length()).trim();
    }
    try {
      JsonNode message = JobJson.mapper().readTree(out).findValue("message");
      if (message != null && message.isTextual()) {
        return message.asText();
      }
    } catch (IOException | RuntimeException e) {
      // not JSON: its last line below
    }
    List<String> lines = (err + out).lines().filter(line -> !line.isBlank()).toList();
    return lines.isEmpty() ? "no output" : lines.get(lines.size() - 1).trim();
  }

  private Process start(List<String> args, boolean exitFigures) {
    List<String> options = new ArrayList<>(javaOptions);
    if (exitFigures) {
      options.add("-D" + ExitFigures.PROPERTY + "=true");
    }
    return ChildJvm.start(options, cliClassPath(), "io.icecompact.cli.IcecompactCli", args);
  }

  /**
   * The CLI's own jar when {@code ./icecompact} names it ({@value #CLI_CLASS_PATH}), so the fresh
   * process has the class path its class-data archive was recorded with, and maps it as a user's
   * {@code ./icecompact compact} does (the JVM ignores an archive of another class path); else this
   * JVM's class path, which holds the CLI too.
   */
  static String cliClassPath() {
    String cli = System.getProperty(CLI_CLASS_PATH, "");
    return cli.isBlank() ? System.getProperty("java.class.path") : cli;
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
