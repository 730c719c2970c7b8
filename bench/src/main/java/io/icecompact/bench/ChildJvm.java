package io.icecompact.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A main class run in a new JVM started from this JVM's own java and classpath, so what it measures
 * (heap, time) is its own and bounded by the options it is given, not by the bench's heap.
 */
final class ChildJvm {
  /** What the child printed and how it ended. */
  record Outcome(int exitCode, String out, String err, double seconds) {}

  private ChildJvm() {}

  static List<String> command(List<String> javaOptions, String mainClass, List<String> args) {
    return command(javaOptions, System.getProperty("java.class.path"), mainClass, args);
  }

  static List<String> command(
      List<String> javaOptions, String classPath, String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(javaOptions);
    command.addAll(List.of("-cp", classPath, mainClass));
    command.addAll(args);
    return command;
  }

  static Process start(List<String> javaOptions, String mainClass, List<String> args) {
    return start(javaOptions, System.getProperty("java.class.path"), mainClass, args);
  }

  static Process start(
      List<String> javaOptions, String classPath, String mainClass, List<String> args) {
    List<String> command = command(javaOptions, classPath, mainClass, args);
    try {
      return new ProcessBuilder(command).start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + command.get(0), e);
    }
  }

  /** Runs {@code mainClass} to its end, reading its stdout and stderr whole. */
  static Outcome run(List<String> javaOptions, Class<?> mainClass, List<String> args) {
    return run(javaOptions, System.getProperty("java.class.path"), mainClass.getName(), args);
  }

  /** Runs {@code mainClass} from {@code classPath} to its end, reading its stdout and stderr. */
  static Outcome run(
      List<String> javaOptions, String classPath, String mainClass, List<String> args) {
    long start = System.nanoTime();
    Process process = start(javaOptions, classPath, mainClass, args);
    CompletableFuture<String> err =
        CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
    String out = drain(process.getInputStream());
    int exit;
    try {
      exit = process.waitFor();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while " + mainClass + " ran", e);
    }
    return new Outcome(exit, out, err.join(), (System.nanoTime() - start) / 1e9);
  }

  static String drain(InputStream stream) {
    try (stream) {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
