package io.icecompact.testkit;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lambda Invoke API ({@code POST /2015-03-31/functions/{FunctionName}/invocations}) inside the
 * test JVM, so that a state machine run by {@link LocalStateMachine} — or any AWS SDK Lambda client
 * — calls the project's real handler classes. {@code FunctionName} may be a name, a full ARN
 * ({@code arn:aws:lambda:us-east-1:123456789012:function:name[:qualifier]}) or a partial ARN.
 *
 * <p>A handler that returns answers 200 with its output. A handler that throws answers 200 with
 * header {@code X-Amz-Function-Error: Unhandled} and the body Lambda's Java runtime sends, {@code
 * {"errorMessage": <message, or the class name when null>, "errorType": <fully qualified class
 * name>, "stackTrace": ["<frame>", ...]}}, so that {@code Retry}/{@code Catch} {@code ErrorEquals}
 * match on the exception's class name as in AWS. Invocations run concurrently, each with a fresh
 * request id.
 *
 * <p>A response larger than {@link #RESPONSE_LIMIT_BYTES} (Step Functions' 256 KiB, far below
 * Lambda's own 6 MB) is answered as Step Functions treats it: a function error {@code
 * States.DataLimitExceeded}, which the state-machine runner makes terminal (no Retry, no Catch, not
 * even {@code States.ALL}), as in AWS. It is also recorded in {@link #limitViolations()}, so that a
 * test can fail on it even when the caller swallowed the error.
 */
public final class LocalLambda implements AutoCloseable {
  public static final String REGION = "us-east-1";
  public static final String ACCOUNT = "123456789012";

  /** Lambda's maximum, reported by {@link Context#getRemainingTimeInMillis()}. */
  private static final Duration TIMEOUT = Duration.ofMinutes(15);

  /** The largest result Step Functions accepts from a Task: 256 KiB of UTF-8 JSON. */
  public static final int RESPONSE_LIMIT_BYTES = 256 * 1024;

  /** The error Step Functions fails a Task with when its result is larger. */
  public static final String DATA_LIMIT_EXCEEDED = "States.DataLimitExceeded";

  private static final Pattern INVOKE_PATH =
      Pattern.compile("^/2015-03-31/functions/([^/]+)/invocations/?$");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, RequestStreamHandler> handlers = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> invocations = new ConcurrentHashMap<>();
  private final Map<String, List<String>> payloads = new ConcurrentHashMap<>();
  private final List<String> limitViolations = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> throttled = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> throttles = new ConcurrentHashMap<>();
  private final Map<String, TimeoutRule> timingOut = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> failing = new ConcurrentHashMap<>();
  private HttpServer server;
  private ExecutorService executor;
  private URI endpoint;

  /** Starts the server on a free port of 127.0.0.1; every accessor calls this. */
  public synchronized LocalLambda start() {
    if (server != null) {
      return this;
    }
    try {
      HttpServer created =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      executor =
          Executors.newCachedThreadPool(
              runnable -> {
                Thread thread = new Thread(runnable, "local-lambda");
                thread.setDaemon(true);
                return thread;
              });
      created.setExecutor(executor);
      created.createContext("/", this::handle);
      created.start();
      server = created;
      endpoint = URI.create("http://127.0.0.1:" + created.getAddress().getPort());
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the local Lambda endpoint", e);
    }
  }

  /** {@code http://127.0.0.1:<port>}: the endpoint to give an AWS SDK Lambda client. */
  public URI endpoint() {
    start();
    return endpoint;
  }

  /**
   * Makes invocations of {@code functionName} (a name, or an ARN whose name is taken) run {@code
   * handler}, replacing an earlier registration; starts the server.
   */
  public LocalLambda register(String functionName, RequestStreamHandler handler) {
    Objects.requireNonNull(handler, "handler");
    String name = functionName(functionName);
    handlers.put(name, handler);
    invocations.computeIfAbsent(name, n -> new AtomicInteger());
    payloads.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
    start();
    return this;
  }

  /**
   * The next {@code invocations} invocations of {@code functionName} are refused as Lambda refuses
   * an invocation above the function's or the account's free concurrency: HTTP 429 {@code
   * TooManyRequestsException} ({@code Rate Exceeded.}), the handler not run. Step Functions reports
   * that to the state as {@code Lambda.TooManyRequestsException}.
   */
  public LocalLambda throttle(String functionName, int invocations) {
    throttled
        .computeIfAbsent(functionName(functionName), n -> new AtomicInteger())
        .set(invocations);
    return this;
  }

  /**
   * The next {@code invocations} invocations of {@code functionName} end as Lambda ends a function
   * that ran out of its timeout: the handler runs (everything it wrote stays written, as a function
   * stopped right after its last write), then its answer, result or error, is replaced by the
   * function error Lambda reports, {@code Sandbox.Timedout} ("Task timed out after 900.00
   * seconds"), which Step Functions gives the state as the error name.
   */
  public LocalLambda timeOut(String functionName, int invocations) {
    return timeOut(functionName, payload -> true, invocations);
  }

  /**
   * As {@link #timeOut(String, int)}, for the next invocations whose payload (JSON text) matches
   * {@code which}.
   */
  public LocalLambda timeOut(String functionName, Predicate<String> which, int invocations) {
    timingOut.put(
        functionName(functionName), new TimeoutRule(which, new AtomicInteger(invocations), true));
    return this;
  }

  /**
   * As {@link #timeOut(String, int)}, but the function error Lambda reports has no {@code
   * errorType}, as for a function whose runtime died before answering (out of memory, or a timeout
   * reported that way): Step Functions gives the state {@code Lambda.Unknown} as the error name.
   */
  public LocalLambda unknownError(String functionName, int invocations) {
    timingOut.put(
        functionName(functionName),
        new TimeoutRule(payload -> true, new AtomicInteger(invocations), false));
    return this;
  }

  /**
   * {@code typed}: the answer names {@code Sandbox.Timedout}; otherwise it has no errorType
   * (Lambda.Unknown).
   */
  private record TimeoutRule(Predicate<String> which, AtomicInteger left, boolean typed) {
    boolean take(String payload) {
      return which.test(payload) && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }
  }

  /**
   * The next {@code invocations} invocations of {@code functionName} fail as Lambda fails an
   * invocation on its own side: HTTP 500 {@code ServiceException}, the handler not run. Step
   * Functions reports it to the state as {@code Lambda.ServiceException}, which AWS recommends
   * retrying.
   */
  public LocalLambda serviceError(String functionName, int invocations) {
    failing.computeIfAbsent(functionName(functionName), n -> new AtomicInteger()).set(invocations);
    return this;
  }

  /** How many invocations of {@code functionName} were refused by {@link #throttle}. */
  public int throttles(String functionName) {
    AtomicInteger count = throttles.get(functionName(functionName));
    return count == null ? 0 : count.get();
  }

  /** The ARN under which a state machine's Task state names {@code functionName}. */
  public static String arn(String functionName) {
    return "arn:aws:lambda:" + REGION + ":" + ACCOUNT + ":function:" + functionName;
  }

  /** How many times {@code functionName} was invoked, failed invocations included. */
  public int invocations(String functionName) {
    AtomicInteger count = invocations.get(functionName(functionName));
    return count == null ? 0 : count.get();
  }

  /** The payloads {@code functionName} was invoked with, in arrival order. */
  public List<String> payloads(String functionName) {
    List<String> received = payloads.get(functionName(functionName));
    return received == null ? List.of() : List.copyOf(received);
  }

  /**
   * The responses refused because they exceeded {@link #RESPONSE_LIMIT_BYTES}, one line each
   * (function and size), in arrival order.
   */
  public List<String> limitViolations() {
    return List.copyOf(limitViolations);
  }

  /** Forgets the invocation counts, payloads and limit violations (handlers stay registered). */
  public void resetCounts() {
    invocations.values().forEach(count -> count.set(0));
    throttled.clear();
    timingOut.clear();
    failing.clear();
    throttles.clear();
    payloads.values().forEach(List::clear);
    limitViolations.clear();
  }

  /**
   * The function name in a FunctionName parameter: {@code name}, {@code name:qualifier}, {@code
   * account:function:name[:qualifier]} or {@code
   * arn:aws:lambda:region:account:function:name[:qualifier]}.
   */
  static String functionName(String functionNameOrArn) {
    String value = Objects.requireNonNull(functionNameOrArn, "functionName");
    int marker = value.indexOf(":function:");
    if (marker >= 0) {
      value = value.substring(marker + ":function:".length());
    }
    int qualifier = value.indexOf(':');
    return qualifier >= 0 ? value.substring(0, qualifier) : value;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Matcher matcher = INVOKE_PATH.matcher(exchange.getRequestURI().getRawPath());
      if (!"POST".equals(exchange.getRequestMethod()) || !matcher.matches()) {
        sendServiceError(
            exchange,
            404,
            "UnknownOperationException",
            "Unknown operation " + exchange.getRequestURI());
        return;
      }
      String name = functionName(URLDecoder.decode(matcher.group(1), StandardCharsets.UTF_8));
      RequestStreamHandler handler = handlers.get(name);
      if (handler == null) {
        sendServiceError(
            exchange, 404, "ResourceNotFoundException", "Function not found: " + arn(name));
        return;
      }
      byte[] payload = exchange.getRequestBody().readAllBytes();
      AtomicInteger throttling = throttled.get(name);
      if (throttling != null && throttling.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
        throttles.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        sendServiceError(exchange, 429, "TooManyRequestsException", "Rate Exceeded.");
        return;
      }
      AtomicInteger serviceErrors = failing.get(name);
      if (serviceErrors != null && serviceErrors.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
        sendServiceError(
            exchange,
            500,
            "ServiceException",
            "Lambda was unable to process the request (injected).");
        return;
      }
      invocations.get(name).incrementAndGet();
      payloads.get(name).add(new String(payload, StandardCharsets.UTF_8));
      String invocationType = exchange.getRequestHeaders().getFirst("X-Amz-Invocation-Type");
      if ("Event".equals(invocationType)) {
        executor.execute(() -> invoke(name, handler, payload));
        exchange.sendResponseHeaders(202, -1);
        return;
      }
      Outcome outcome = invoke(name, handler, payload);
      TimeoutRule timeout = timingOut.get(name);
      if (timeout != null && timeout.take(new String(payload, StandardCharsets.UTF_8))) {
        outcome = timedOut(outcome.requestId(), timeout.typed());
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.getResponseHeaders().set("X-Amz-Executed-Version", "$LATEST");
      exchange.getResponseHeaders().set("X-Amzn-RequestId", outcome.requestId());
      if (outcome.error()) {
        exchange.getResponseHeaders().set("X-Amz-Function-Error", "Unhandled");
      }
      exchange.sendResponseHeaders(200, outcome.body().length == 0 ? -1 : outcome.body().length);
      if (outcome.body().length > 0) {
        exchange.getResponseBody().write(outcome.body());
      }
    }
  }

  private record Outcome(String requestId, boolean error, byte[] body) {}

  /**
   * What Lambda answers for an invocation that hit the function's timeout (Lambda's maximum, here);
   * without {@code typed}, no errorType.
   */
  private static Outcome timedOut(String requestId, boolean typed) {
    ObjectNode body = JSON.createObjectNode();
    if (typed) {
      body.put("errorType", "Sandbox.Timedout");
    }
    body.put(
        "errorMessage",
        "RequestId: "
            + requestId
            + " Error: Task timed out after "
            + TIMEOUT.toSeconds()
            + ".00 seconds");
    try {
      return new Outcome(requestId, true, JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The context an invocation of {@code functionName} gets here, for a test that calls a handler
   * directly: request id {@code requestId}, 15 minutes to run.
   */
  public static Context context(String functionName, String requestId) {
    return new LocalContext(functionName, requestId, System.nanoTime());
  }

  private Outcome invoke(String name, RequestStreamHandler handler, byte[] payload) {
    String requestId = UUID.randomUUID().toString();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try (InputStream input = new ByteArrayInputStream(payload)) {
      handler.handleRequest(input, output, new LocalContext(name, requestId, System.nanoTime()));
      byte[] response = output.toByteArray();
      if (response.length > RESPONSE_LIMIT_BYTES) {
        String message =
            String.format(
                "The state/task '%s' returned a result with a size exceeding the maximum number of bytes"
                    + " service limit: %d bytes > %d",
                arn(name), response.length, RESPONSE_LIMIT_BYTES);
        limitViolations.add(name + ": " + message);
        return new Outcome(
            requestId, true, errorBody(DATA_LIMIT_EXCEEDED, message, new StackTraceElement[0]));
      }
      return new Outcome(requestId, false, response);
    } catch (
        Throwable t) { // the Lambda runtime reports Errors (StackOverflowError, ...) the same way
      return new Outcome(requestId, true, errorBody(t));
    }
  }

  /** The error document of Lambda's Java runtime for an exception a handler threw. */
  static byte[] errorBody(Throwable t) {
    String message = t.getLocalizedMessage();
    return errorBody(
        t.getClass().getName(),
        message == null ? t.getClass().getName() : message,
        t.getStackTrace());
  }

  private static byte[] errorBody(
      String errorType, String message, StackTraceElement[] stackTrace) {
    ObjectNode body = JSON.createObjectNode();
    body.put("errorMessage", message);
    body.put("errorType", errorType);
    ArrayNode trace = body.putArray("stackTrace");
    for (StackTraceElement frame : stackTrace) {
      trace.add(frame.toString());
    }
    try {
      return JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sendServiceError(
      HttpExchange exchange, int status, String type, String message) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("Type", status >= 500 ? "Service" : "User");
    body.put("message", message);
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("X-Amzn-ErrorType", type);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop(0);
      server = null;
      executor.shutdownNow();
      executor = null;
    }
  }

  /**
   * The context a handler gets: the fields a handler reads, with a fresh request id per invocation.
   */
  private static final class LocalContext implements Context {
    private final String functionName;
    private final String requestId;
    private final long startNanos;

    LocalContext(String functionName, String requestId, long startNanos) {
      this.functionName = functionName;
      this.requestId = requestId;
      this.startNanos = startNanos;
    }

    @Override
    public String getAwsRequestId() {
      return requestId;
    }

    @Override
    public String getLogGroupName() {
      return "/aws/lambda/" + functionName;
    }

    @Override
    public String getLogStreamName() {
      return "local/[$LATEST]" + requestId.replace("-", "");
    }

    @Override
    public String getFunctionName() {
      return functionName;
    }

    @Override
    public String getFunctionVersion() {
      return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
      return arn(functionName);
    }

    @Override
    public CognitoIdentity getIdentity() {
      return null;
    }

    @Override
    public ClientContext getClientContext() {
      return null;
    }

    @Override
    public int getRemainingTimeInMillis() {
      long elapsed = (System.nanoTime() - startNanos) / 1_000_000L;
      return (int) Math.max(0, TIMEOUT.toMillis() - elapsed);
    }

    @Override
    public int getMemoryLimitInMB() {
      return 1024;
    }

    @Override
    public LambdaLogger getLogger() {
      return new LambdaLogger() {
        @Override
        public void log(String message) {
          System.err.print(message);
        }

        @Override
        public void log(byte[] message) {
          System.err.write(message, 0, message.length);
        }
      };
    }
  }
}
