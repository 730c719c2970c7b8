package io.icecompact.statemachine.coldstart;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Lambda's Runtime API (the {@code 2018-06-01} interface a runtime polls) for one execution
 * environment: it hands out the given payloads one at a time, in order, and records when the
 * runtime first asked for work (its init is over), when each payload was handed out and when its
 * answer came back. Once every payload is answered it holds the runtime's next poll open, as Lambda
 * does with a frozen environment.
 */
final class RuntimeApiStub implements AutoCloseable {
  private static final String PREFIX = "/2018-06-01/runtime/";
  static final String FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:";

  /** One invocation: the runtime's answer and the two instants (System.nanoTime) around it. */
  record Invocation(long handedOutNanos, long answeredNanos, boolean error, byte[] answer) {
    long millis() {
      return TimeUnit.NANOSECONDS.toMillis(answeredNanos - handedOutNanos);
    }

    String answerText() {
      return new String(answer, StandardCharsets.UTF_8);
    }
  }

  private final String functionName;
  private final List<byte[]> payloads;
  private final List<Long> handedOut = new ArrayList<>();
  private final List<Invocation> invocations = new ArrayList<>();
  private final CountDownLatch done = new CountDownLatch(1);
  private final CountDownLatch closing = new CountDownLatch(1);
  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread thread = new Thread(r, "runtime-api-stub");
            thread.setDaemon(true);
            return thread;
          });
  private long firstPollNanos;
  private String initError;

  RuntimeApiStub(String functionName, List<byte[]> payloads) {
    this.functionName = functionName;
    this.payloads = List.copyOf(payloads);
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** {@code host:port}, the runtime's {@code AWS_LAMBDA_RUNTIME_API}. */
  String address() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** Waits until every payload is answered, an invocation failed or init failed. */
  boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    return done.await(timeout, unit);
  }

  synchronized long firstPollNanos() {
    return firstPollNanos;
  }

  synchronized List<Invocation> invocations() {
    return List.copyOf(invocations);
  }

  synchronized String initError() {
    return initError;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      long now = System.nanoTime();
      byte[] body = exchange.getRequestBody().readAllBytes();
      if (path.equals(PREFIX + "invocation/next")) {
        next(exchange, now);
      } else if (path.startsWith(PREFIX + "invocation/") && path.endsWith("/response")) {
        answered(exchange, now, false, body);
      } else if (path.startsWith(PREFIX + "invocation/") && path.endsWith("/error")) {
        answered(exchange, now, true, body);
      } else if (path.equals(PREFIX + "init/error")) {
        synchronized (this) {
          initError = new String(body, StandardCharsets.UTF_8);
        }
        exchange.sendResponseHeaders(202, -1);
        done.countDown();
      } else {
        exchange.sendResponseHeaders(404, -1);
      }
    }
  }

  private void next(HttpExchange exchange, long now) throws IOException {
    int index;
    synchronized (this) {
      if (firstPollNanos == 0) {
        firstPollNanos = now;
      }
      index = handedOut.size();
    }
    if (index >= payloads.size()) {
      try {
        closing.await(); // a frozen environment: no more work until the process is ended
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    byte[] payload = payloads.get(index);
    exchange.getResponseHeaders().set("Lambda-Runtime-Aws-Request-Id", "request-" + (index + 1));
    exchange
        .getResponseHeaders()
        .set("Lambda-Runtime-Deadline-Ms", Long.toString(System.currentTimeMillis() + 900_000));
    exchange
        .getResponseHeaders()
        .set("Lambda-Runtime-Invoked-Function-Arn", FUNCTION_ARN + functionName);
    exchange
        .getResponseHeaders()
        .set(
            "Lambda-Runtime-Trace-Id",
            "Root=1-00000000-000000000000000000000000;Parent=0000000000000000;Sampled=0");
    // The runtime interface client's native HTTP client requires a content type.
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    synchronized (this) {
      handedOut.add(System.nanoTime());
    }
    exchange.sendResponseHeaders(200, payload.length);
    exchange.getResponseBody().write(payload);
  }

  private void answered(HttpExchange exchange, long now, boolean error, byte[] body)
      throws IOException {
    boolean last;
    synchronized (this) {
      invocations.add(new Invocation(handedOut.get(invocations.size()), now, error, body));
      last = error || invocations.size() == payloads.size();
    }
    exchange.sendResponseHeaders(202, -1);
    if (last) {
      done.countDown();
    }
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
