package io.icecompact.statemachine.coldstart;

import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.function.ToLongFunction;

/** The benchmark's figures as a Markdown table: min–max over the rounds, per function. */
final class ColdStartTable {
  private ColdStartTable() {}

  static String markdown(Map<String, List<ExecutionEnvironment.Measured>> byFunction, int rounds) {
    StringBuilder table = new StringBuilder();
    table.append("| function | JIT level | init | first invocation | second invocation |\n");
    table.append("|---|---|---|---|---|\n");
    byFunction.forEach(
        (function, runs) ->
            table
                .append("| ")
                .append(function)
                .append(" | ")
                .append(ColdStartBenchmark.tieredStopAtLevel(function))
                .append(" | ")
                .append(range(runs, ExecutionEnvironment.Measured::initMillis))
                .append(" | ")
                .append(range(runs, m -> m.invocations().get(0).millis()))
                .append(" | ")
                .append(range(runs, m -> m.invocations().get(1).millis()))
                .append(" |\n"));
    table
        .append("\nms, min–max of ")
        .append(rounds)
        .append(" rounds; JVM flags ")
        .append(String.join(" ", ExecutionEnvironment.JVM_FLAGS))
        .append(" and -XX:+TieredCompilation -XX:TieredStopAtLevel=<JIT level>, Java ")
        .append(System.getProperty("java.version"))
        .append(", ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores.\n");
    return table.toString();
  }

  private static String range(
      List<ExecutionEnvironment.Measured> runs,
      ToLongFunction<ExecutionEnvironment.Measured> value) {
    LongSummaryStatistics stats = runs.stream().mapToLong(value).summaryStatistics();
    return stats.getMin() == stats.getMax()
        ? Long.toString(stats.getMin())
        : stats.getMin() + "–" + stats.getMax();
  }
}
