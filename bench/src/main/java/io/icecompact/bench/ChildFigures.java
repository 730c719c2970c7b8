package io.icecompact.bench;

import io.icecompact.cli.ExitFigures;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one {@link ConvertBenchChild} process measured: its wall time as the bench saw it (JVM start
 * included), the figures it printed of itself, its CPU time and peak RSS at exit, and a job's
 * result (null for a scan).
 */
record ChildFigures(
    double wallSeconds, Map<String, Long> figures, ExitFigures process, JobResult result) {

  /** Runs the child to its end; a child that failed or printed no figures fails the bench. */
  static ChildFigures run(List<String> javaOptions, List<String> args) {
    List<String> options = new ArrayList<>(javaOptions);
    options.add("-D" + ExitFigures.PROPERTY + "=true");
    return of(ChildJvm.run(options, ConvertBenchChild.class, args), args);
  }

  /**
   * The figures of a child that ran elsewhere than on this JVM's class path (a Spark scan), which
   * prints them as {@link ConvertBenchChild} does.
   */
  static ChildFigures of(ChildJvm.Outcome outcome, List<String> args) {
    Map<String, Long> figures = new HashMap<>();
    JobResult result = null;
    for (String line : outcome.out().lines().toList()) {
      if (line.startsWith(ConvertBenchChild.PREFIX)) {
        for (String part : line.substring(ConvertBenchChild.PREFIX.length()).trim().split(" ")) {
          String[] pair = part.split("=", 2);
          figures.put(pair[0], Long.parseLong(pair[1]));
        }
      } else if (line.startsWith(ConvertBenchChild.RESULT)) {
        try {
          result =
              JobJson.mapper()
                  .readValue(
                      line.substring(ConvertBenchChild.RESULT.length()).trim(), JobResult.class);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    ExitFigures process =
        outcome
            .err()
            .lines()
            .map(ExitFigures::parse)
            .flatMap(Optional::stream)
            .reduce((a, b) -> b)
            .orElse(ExitFigures.NONE);
    if (outcome.exitCode() != 0 || figures.isEmpty()) {
      String err = outcome.err().strip();
      throw new IllegalStateException(
          "'"
              + String.join(" ", args.subList(0, 1))
              + "' failed in its fresh JVM (exit "
              + outcome.exitCode()
              + "):\n"
              + err.substring(Math.max(0, err.length() - 4000)));
    }
    return new ChildFigures(outcome.seconds(), figures, process, result);
  }

  /**
   * This process's figures followed by {@code next}'s, as one contender of two jobs run one after
   * the other: times, CPU, bytes and streams add up; peak memory is the larger; the result is the
   * last job's.
   */
  ChildFigures then(ChildFigures next) {
    Map<String, Long> sum = new HashMap<>(figures);
    next.figures.forEach(
        (name, value) ->
            sum.merge(
                name,
                value,
                name.startsWith("heap-")
                    ? Math::max
                    : "rows".equals(name) ? (a, b) -> b : Long::sum));
    return new ChildFigures(
        wallSeconds + next.wallSeconds,
        sum,
        new ExitFigures(
            process.cpuSeconds() + next.process.cpuSeconds(),
            Math.max(process.peakRssMb(), next.process.peakRssMb())),
        next.result);
  }

  long figure(String name) {
    return figures.getOrDefault(name, -1L);
  }

  double actionSeconds() {
    return figure("action-ns") / 1e9;
  }

  /** Bytes of the table's data and delete files read through the FileIO's streams. */
  long tableBytesRead() {
    return figure("data-bytes") + figure("delete-bytes");
  }
}
