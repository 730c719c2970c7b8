package io.icecompact.statemachine.deployedjars;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs in a fresh JVM whose class path is a function's deployable jar and this class alone, as
 * {@link CatalogProbe} does: constructs a Lambda handler of the jar by its public no-argument
 * constructor, as Lambda's runtime does, and invokes it once per payload file, in name order, in
 * one JVM (a warm container). Each answer goes into {@code <payload>.answer.json}, or its failure
 * into {@code <payload>.error.txt} (the cause chain's classes on the first line, then the stack
 * trace). Started by {@link DeployedJar#invoke}.
 */
public final class HandlerProbe {
  private HandlerProbe() {}

  /** {@code args[0]}: the handler class; {@code args[1]}: the folder of payloads and answers. */
  public static void main(String[] args) throws Exception {
    RequestStreamHandler handler =
        (RequestStreamHandler) Class.forName(args[0]).getConstructor().newInstance();
    Path folder = Path.of(args[1]);
    List<Path> payloads;
    try (Stream<Path> files = Files.list(folder)) {
      payloads = files.filter(f -> f.toString().endsWith(".payload.json")).sorted().toList();
    }
    for (Path payload : payloads) {
      String name = payload.getFileName().toString().replaceFirst("\\.payload\\.json$", "");
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      try (InputStream in = Files.newInputStream(payload)) {
        handler.handleRequest(in, answer, context(name));
        Files.write(folder.resolve(name + ".answer.json"), answer.toByteArray());
      } catch (Throwable e) { // LinkageErrors above all: they are what this probe is for
        Files.writeString(
            folder.resolve(name + ".error.txt"),
            causeClasses(e) + "\n" + stackTrace(e),
            StandardCharsets.UTF_8);
      }
    }
    // The AWS SDK and log4j leave non-daemon threads behind; the answers are written.
    System.exit(0);
  }

  /**
   * A Context with a request id and Lambda's longest time left; nothing else is read. Made here:
   * the testkit's LocalLambda is not on the jar's class path.
   */
  private static Context context(String requestId) {
    return (Context)
        Proxy.newProxyInstance(
            Context.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getAwsRequestId" -> requestId;
                  case "getRemainingTimeInMillis" -> 900_000;
                  case "getMemoryLimitInMB" -> 1769;
                  case "toString" -> "HandlerProbe context " + requestId;
                  default -> null;
                });
  }

  private static String causeClasses(Throwable e) {
    StringBuilder classes = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      classes.append(classes.length() == 0 ? "" : ",").append(t.getClass().getName());
    }
    return classes.toString();
  }

  private static String stackTrace(Throwable e) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    return text.toString();
  }
}
