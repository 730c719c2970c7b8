package io.icecompact.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * What a process cost, reported by the process itself as it exits: its CPU time (user + system,
 * every thread: workers, GC, JIT) and its peak resident set ({@code VmHWM} in {@code
 * /proc/self/status}). The bench starts {@code icecompact compact} with {@code -D}{@value
 * #PROPERTY}{@code =true}; the command's main then prints one line, {@value #PREFIX}..., on stderr
 * at exit, which the bench ({@code io.icecompact.bench.FreshProcessJob}) parses. Measured from
 * inside, the figures are the child's own and cover its whole life, up to its exit.
 */
public record ExitFigures(double cpuSeconds, double peakRssMb) {
  public static final String PROPERTY = "icecompact.bench.exit-figures";
  static final String PREFIX = "icecompact-exit-figures:";

  /** Not measured: a warm run's RSS, or a child that died before its shutdown hooks ran. */
  public static final ExitFigures NONE = new ExitFigures(Double.NaN, Double.NaN);

  /**
   * Called first by the CLI's main: with {@value #PROPERTY}=true, prints this process's figures at
   * exit.
   */
  public static void reportAtExitIfAsked() {
    if (Boolean.getBoolean(PROPERTY)) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    System.err.println(line());
                    System.err.flush();
                  },
                  "icecompact-exit-figures"));
    }
  }

  /** This process's figures now, as the line the bench parses. */
  static String line() {
    return String.format(
        Locale.ROOT, "%s cpu-ns=%d peak-rss-kb=%d", PREFIX, cpuNanos(), peakRssKb());
  }

  /** The figures a child's stderr line gives, if it is one. */
  public static Optional<ExitFigures> parse(String line) {
    if (!line.startsWith(PREFIX)) {
      return Optional.empty();
    }
    double cpu = Double.NaN;
    double rss = Double.NaN;
    for (String part : line.substring(PREFIX.length()).trim().split("\\s+")) {
      String[] pair = part.split("=", 2);
      if (pair.length == 2 && pair[1].matches("\\d+")) {
        switch (pair[0]) {
          case "cpu-ns" -> cpu = Long.parseLong(pair[1]) / 1e9;
          case "peak-rss-kb" -> rss = Long.parseLong(pair[1]) / 1024.0;
          default -> {
            // a figure of a later version
          }
        }
      }
    }
    return Optional.of(new ExitFigures(cpu, rss));
  }

  /**
   * CPU time of this whole process, user + system, in nanoseconds; -1 where the JVM cannot tell.
   */
  public static long cpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** The peak resident set of this process in kB ({@code VmHWM}), -1 off Linux. */
  static long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring("VmHWM:".length()).replace("kB", "").trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: no figure
    }
    return -1;
  }
}
