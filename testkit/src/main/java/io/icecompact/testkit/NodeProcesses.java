package io.icecompact.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs the node scripts of {@code local-aws/} as child processes. */
final class NodeProcesses {
  private NodeProcesses() {}

  /** What a finished node script printed and returned. */
  record Completed(int exitCode, String stdout, String stderr) {}

  static ProcessBuilder builder(Path localAws, String script, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(LocalAwsDir.node());
    command.add(localAws.resolve(script).toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).directory(localAws.toFile());
    Map<String, String> env = builder.environment();
    // The scripts need no AWS configuration of the machine; keep a developer's profile out of them.
    env.keySet().removeIf(name -> name.startsWith("AWS_"));
    env.put("AWS_CONFIG_FILE", localAws.resolve("no-aws-config").toString());
    env.put("AWS_SHARED_CREDENTIALS_FILE", localAws.resolve("no-aws-credentials").toString());
    env.put("NODE_NO_WARNINGS", "1");
    return builder;
  }

  /**
   * Runs a script to completion, feeding it {@code stdin}; kills it after {@code timeoutMillis}.
   * The process is in {@code running} while it runs.
   */
  static Completed run(
      Path localAws,
      String script,
      List<String> args,
      byte[] stdin,
      long timeoutMillis,
      Set<Process> running)
      throws TimeoutException {
    Process process;
    try {
      process = builder(localAws, script, args).start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start " + LocalAwsDir.node() + " (is Node.js 20+ on the PATH?)", e);
    }
    running.add(process);
    CompletableFuture<byte[]> out = drain(process.getInputStream());
    CompletableFuture<byte[]> err = drain(process.getErrorStream());
    try (var in = process.getOutputStream()) {
      in.write(stdin);
    } catch (IOException e) {
      // the script exited before reading its input; its exit code and stderr say why
    }
    try {
      if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new TimeoutException(
            script + " did not finish within " + timeoutMillis + " ms; stderr: " + text(err, 2000));
      }
      return new Completed(process.exitValue(), text(out, 5000), text(err, 5000));
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + script, e);
    } finally {
      running.remove(process);
    }
  }

  static CompletableFuture<byte[]> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (stream) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            stream.transferTo(buffer);
            return buffer.toByteArray();
          } catch (IOException e) {
            return new byte[0];
          }
        },
        runnable -> {
          Thread thread = new Thread(runnable, "testkit-node-output");
          thread.setDaemon(true);
          thread.start();
        });
  }

  private static String text(CompletableFuture<byte[]> bytes, long waitMillis) {
    try {
      return new String(bytes.get(waitMillis, TimeUnit.MILLISECONDS), StandardCharsets.UTF_8);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    } catch (ExecutionException | TimeoutException e) {
      return "";
    }
  }
}
