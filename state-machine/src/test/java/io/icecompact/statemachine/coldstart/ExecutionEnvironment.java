package io.icecompact.statemachine.coldstart;

import io.icecompact.statemachine.ClassPathJars;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Lambda execution environment on this machine, laid out as Lambda's managed Java runtime lays
 * it out: a fresh JVM runs AWS's runtime interface client (the open-source runtime of the managed
 * Java runtimes) from the system class path; the function's deployable jar is in {@code <task
 * root>/lib}, loaded by the client's customer class loader; the client constructs the handler
 * (init) and then polls {@link RuntimeApiStub} for invocations. Nothing of the benchmark runs
 * inside that JVM.
 *
 * <p>JVM flags: the serial collector, the runtime's default; the JIT level comes with the
 * function's environment ({@code JAVA_TOOL_OPTIONS}, as the template sets it). Heap and metaspace
 * limits by memory size are not set.
 */
final class ExecutionEnvironment {
  static final List<String> JVM_FLAGS = List.of("-XX:+UseSerialGC");
  private static final String RUNTIME_MAIN =
      "com.amazonaws.services.lambda.runtime.api.client.AWSLambda";

  /**
   * Jars of the runtime interface client, found on this JVM's class path (Maven profile
   * cold-start).
   */
  private static final List<String> RUNTIME_JARS =
      List.of(
          "aws-lambda-java-runtime-interface-client",
          "aws-lambda-java-serialization",
          "aws-lambda-java-core",
          "utils-lite");

  /** What one environment did: init (process start to first poll) and each invocation in turn. */
  record Measured(
      String function, long initMillis, List<RuntimeApiStub.Invocation> invocations, Path stdout) {}

  private ExecutionEnvironment() {}

  /**
   * Starts an environment for {@code handler} in {@code jars} (the function's jar, and any jar a
   * deployment adds next to it, such as a JDBC driver), invokes it with each payload in turn, and
   * ends the process.
   *
   * @param environment the function's environment variables (on top of this process's, which it
   *     inherits)
   * @throws IllegalStateException when init or an invocation fails, with the runtime's error
   */
  static Measured run(
      String function,
      List<Path> jars,
      String handler,
      List<byte[]> payloads,
      Map<String, String> environment,
      Path workDir)
      throws IOException, InterruptedException {
    Path taskRoot = Files.createDirectories(workDir.resolve(function).resolve("task"));
    Files.createDirectories(taskRoot.resolve("lib"));
    for (Path jar : jars) {
      Files.copy(
          jar,
          taskRoot.resolve("lib").resolve(jar.getFileName()),
          StandardCopyOption.REPLACE_EXISTING);
    }
    Path stdout = workDir.resolve(function).resolve("stdout.log");

    try (RuntimeApiStub api = new RuntimeApiStub(function, payloads)) {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(JVM_FLAGS);
      command.add("-cp");
      command.add(runtimeClassPath());
      command.add(RUNTIME_MAIN);
      command.add(handler);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(taskRoot.toFile())
              .redirectOutput(stdout.toFile())
              .redirectError(workDir.resolve(function).resolve("stderr.log").toFile());
      Map<String, String> env = builder.environment();
      env.remove("JAVA_TOOL_OPTIONS");
      env.putAll(environment);
      env.put("AWS_LAMBDA_RUNTIME_API", api.address());
      env.put("AWS_LAMBDA_FUNCTION_NAME", function);
      env.put("LAMBDA_TASK_ROOT", taskRoot.toString());

      long started = System.nanoTime();
      Process process = builder.start();
      try {
        if (!api.await(10, TimeUnit.MINUTES)) {
          throw new IllegalStateException(
              function + ": no answer within 10 minutes; see " + stdout);
        }
      } finally {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      }
      if (api.initError() != null) {
        throw new IllegalStateException(function + " init failed: " + api.initError());
      }
      List<RuntimeApiStub.Invocation> invocations = api.invocations();
      for (RuntimeApiStub.Invocation invocation : invocations) {
        if (invocation.error()) {
          throw new IllegalStateException(
              function + " failed: " + invocation.answerText() + "; see " + stdout);
        }
      }
      long initMillis = TimeUnit.NANOSECONDS.toMillis(api.firstPollNanos() - started);
      return new Measured(function, initMillis, invocations, stdout);
    }
  }

  private static String runtimeClassPath() {
    List<String> found = new ArrayList<>();
    for (String artifact : RUNTIME_JARS) {
      found.add(ClassPathJars.find(artifact).toString());
    }
    return String.join(File.pathSeparator, found);
  }
}
