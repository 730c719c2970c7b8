package io.icecompact.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine;

/**
 * One in-process run of {@code bench}: exit code, what it wrote to its out and err writers, and
 * anything written to System.out behind picocli's back.
 */
record BenchRun(int exitCode, String out, String err, String systemOut) {

  static BenchRun of(List<String> args) {
    return of(args.toArray(String[]::new));
  }

  static synchronized BenchRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    PrintStream original = System.out;
    ByteArrayOutputStream stray = new ByteArrayOutputStream();
    int code;
    // Swapped before the CommandLine exists: picocli's default execution strategy remembers
    // System.out when it is created and, if System.out differs at execute(), replaces the writer
    // set below with it.
    System.setOut(new PrintStream(stray, true, StandardCharsets.UTF_8));
    try {
      CommandLine cli = BenchMain.commandLine();
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(err, true));
      code = cli.execute(args);
    } finally {
      System.setOut(original);
    }
    return new BenchRun(
        code, out.toString(), err.toString(), stray.toString(StandardCharsets.UTF_8));
  }
}
