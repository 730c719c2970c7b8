package io.icecompact.testkit;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A TCP proxy in front of a {@link LocalS3} that answers chosen requests the way a struggling S3
 * does ({@link S3Fault}: 503 SlowDown, 500 InternalError, a reset connection, a reset mid-answer, a
 * delay) and forwards every other request unchanged. Clients point at {@link #endpoint()}
 * (path-style); since the request's head, {@code Host} included, reaches s3proxy as the client
 * signed it, SigV4 checks pass.
 *
 * <p>Rules ({@link S3FaultRule}) are matched in the order added; the first that matches and draws a
 * fault answers. Draws are seeded and depend only on the seed, the rule, the request (method,
 * bucket, key) and how many times that rule saw that request before: the same requests fault the
 * same way whatever the order in which concurrent clients send them. A rule's {@code times} limit
 * is shared by all requests, so which ones it reaches can depend on their order. Every injected
 * fault is recorded ({@link #injected()}).
 *
 * <p>It can also enforce a session policy ({@link #enforce}, or the policy of the session a {@link
 * LocalSts} issued, named by the request's {@code X-Amz-Security-Token}): each request is mapped to
 * the IAM actions and resources S3 would check ({@code S3Authorization}), evaluated ({@link
 * IamPolicy}), answered 403 AccessDenied when outside, and every decision is recorded ({@link
 * #decisions()}). Signatures stay s3proxy's to check: the head reaches it as signed.
 *
 * <p>Each connection carries one request: the proxy asks the server to close after answering
 * ({@code Connection: close}, which SigV4 does not sign), so every request passes the rules.
 */
public final class FaultyS3 implements AutoCloseable {
  /** A fault the proxy injected: which request got which fault. */
  public record InjectedFault(S3Fault fault, String method, String bucket, String key) {}

  /** What the enforced policy said of one action a request needed. */
  public record PolicyDecision(String action, String resource, boolean allowed) {}

  static final String SECURITY_TOKEN = "X-Amz-Security-Token";

  private final LocalS3 upstream;
  private final long seed;
  private final List<RuleState> rules = new ArrayList<>();
  private final List<InjectedFault> injected = new CopyOnWriteArrayList<>();
  private final List<PolicyDecision> decisions = new CopyOnWriteArrayList<>();
  private final Map<String, IamPolicy> sessions = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile IamPolicy policy;
  private ServerSocket server;
  private ExecutorService connections;
  private URI endpoint;
  private S3Client client;

  /** A proxy for {@code upstream} whose probability draws are seeded with {@code seed}. */
  public FaultyS3(LocalS3 upstream, long seed) {
    this.upstream = upstream;
    this.seed = seed;
  }

  /** Starts listening on a free port of 127.0.0.1; every accessor calls this. */
  public synchronized FaultyS3 start() {
    if (server != null) {
      return this;
    }
    try {
      server = new ServerSocket(0, 256, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new IllegalStateException("Cannot listen for the S3 fault proxy", e);
    }
    endpoint = URI.create("http://127.0.0.1:" + server.getLocalPort());
    connections =
        Executors.newCachedThreadPool(
            runnable -> {
              Thread thread = new Thread(runnable, "faulty-s3");
              thread.setDaemon(true);
              return thread;
            });
    ServerSocket listening = server;
    connections.execute(() -> accept(listening));
    return this;
  }

  /** {@code http://127.0.0.1:<port>} of the proxy; use path-style addressing. */
  public URI endpoint() {
    start();
    return endpoint;
  }

  /** Adds a rule after those already added. */
  public synchronized FaultyS3 inject(S3FaultRule rule) {
    rules.add(new RuleState(rule, rules.size()));
    return this;
  }

  /** Removes {@code rule} (the instance given to {@link #inject}); its faults stay recorded. */
  public synchronized FaultyS3 remove(S3FaultRule rule) {
    rules.removeIf(state -> state.rule == rule);
    return this;
  }

  /** Removes every rule; the faults injected so far stay recorded. */
  public synchronized FaultyS3 clearRules() {
    rules.clear();
    return this;
  }

  /**
   * Every fault injected since start or the last {@link #clearInjected()}, in the order injected.
   */
  public List<InjectedFault> injected() {
    return List.copyOf(injected);
  }

  public void clearInjected() {
    injected.clear();
  }

  /**
   * Enforces {@code policyDocument} on every request that names no session token (one signed with
   * {@link LocalS3}'s own keys), until {@link #stopEnforcing()}.
   */
  public FaultyS3 enforce(String policyDocument) {
    policy = IamPolicy.parse(policyDocument);
    return this;
  }

  /** Requests without a session token pass unchecked again; sessions' policies still hold. */
  public FaultyS3 stopEnforcing() {
    policy = null;
    return this;
  }

  /** A session {@link LocalSts} issued: requests carrying {@code token} are held to its policy. */
  void admitSession(String token, String policyDocument) {
    sessions.put(token, IamPolicy.parse(policyDocument));
  }

  /** Every decision since start or {@link #clearDecisions()}, in the order made. */
  public List<PolicyDecision> decisions() {
    return List.copyOf(decisions);
  }

  public void clearDecisions() {
    decisions.clear();
  }

  /**
   * {@link LocalS3#icebergProperties()} with {@code s3.endpoint} pointing at this proxy, and
   * S3FileIO's retry waits shortened (base 10 ms, at most 100 ms instead of 2 s and 20 s) so that
   * tests retrying through faults stay fast; the number of retries stays Iceberg's default (5).
   */
  public Map<String, String> icebergProperties() {
    Map<String, String> properties = new TreeMap<>(upstream.icebergProperties());
    properties.put("s3.endpoint", endpoint().toString());
    properties.put("s3.retry.min-wait-ms", "10");
    properties.put("s3.retry.max-wait-ms", "100");
    return properties;
  }

  /** {@link LocalS3#jdbcCatalogProperties} through this proxy ({@link #icebergProperties()}). */
  public Map<String, String> jdbcCatalogProperties(String bucket, Path sqliteFile) {
    Map<String, String> properties =
        new TreeMap<>(upstream.jdbcCatalogProperties(bucket, sqliteFile));
    properties.putAll(icebergProperties());
    return properties;
  }

  /**
   * An SDK client through this proxy, closed with this instance. It retries as the SDK's standard
   * mode (3 attempts) but waits 10 to 100 ms between attempts, and never stops retrying for lack of
   * retry tokens (which would make outcomes depend on earlier tests).
   */
  public synchronized S3Client client() {
    start();
    if (client == null) {
      client = newClient(fastRetries());
    }
    return client;
  }

  /** A new SDK client through this proxy with {@code retries}; the caller closes it. */
  S3Client newClient(RetryStrategy retries) {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.of(LocalS3.REGION))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(LocalS3.ACCESS_KEY_ID, LocalS3.SECRET_ACCESS_KEY)))
        .httpClient(UrlConnectionHttpClient.create())
        .overrideConfiguration(o -> o.retryStrategy(retries))
        .build();
  }

  private static RetryStrategy fastRetries() {
    BackoffStrategy backoff =
        BackoffStrategy.exponentialDelay(Duration.ofMillis(10), Duration.ofMillis(100));
    return AwsRetryStrategy.standardRetryStrategy().toBuilder()
        .backoffStrategy(backoff)
        .throttlingBackoffStrategy(backoff)
        .circuitBreakerEnabled(false)
        .build();
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
    if (server != null) {
      try {
        server.close();
      } catch (IOException ignored) {
        // closing
      }
      connections.shutdownNow();
      server = null;
    }
  }

  // ---- the proxy ----

  private void accept(ServerSocket listening) {
    while (!listening.isClosed()) {
      try {
        Socket socket = listening.accept();
        connections.execute(() -> serve(socket));
      } catch (IOException closed) {
        return;
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        return;
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = new BufferedInputStream(client.getInputStream());
      HttpRequestHead head = HttpRequestHead.read(in);
      if (head == null) {
        return;
      }
      Optional<String> token = head.header(SECURITY_TOKEN);
      IamPolicy enforced = token.isPresent() ? sessions.get(token.get()) : policy;
      if (enforced != null || token.isPresent()) {
        byte[] body = S3Authorization.needsBody(head) ? head.readBody(in) : null;
        Optional<String> denied = authorize(enforced, head, body);
        if (denied.isPresent()) {
          if (body == null && !head.expectsContinue()) {
            head.skipBody(in);
          }
          answer(
              client.getOutputStream(),
              head,
              new S3Fault.ErrorResponse(403, "AccessDenied", denied.get()));
          return;
        }
        if (body != null) {
          in = new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(body), in);
        }
      }
      Optional<S3Fault> fault = decide(head);
      if (fault.isPresent() && fault.get() instanceof S3Fault.ErrorResponse error) {
        if (!head.expectsContinue()) {
          head.skipBody(in);
        }
        answer(client.getOutputStream(), head, error);
      } else if (fault.isPresent() && fault.get() instanceof S3Fault.ConnectionReset) {
        reset(client);
      } else {
        if (fault.isPresent() && fault.get() instanceof S3Fault.Delay delay) {
          Thread.sleep(delay.delay().toMillis());
        }
        forward(
            client, in, head, fault.isPresent() && fault.get() instanceof S3Fault.ResetMidResponse);
      }
    } catch (IOException | InterruptedException e) {
      // the client or the server went away: nothing to answer
    }
  }

  /**
   * Records a decision for each action the request needs; the first denied one's message, if any. A
   * session token no {@link LocalSts} issued is denied, as S3 refuses an invalid token.
   */
  private Optional<String> authorize(IamPolicy enforced, HttpRequestHead head, byte[] body) {
    String denied = null;
    for (S3Authorization.Need need : S3Authorization.of(head, body)) {
      boolean allowed = enforced != null && enforced.allows(need.action(), need.resource());
      decisions.add(new PolicyDecision(need.action(), need.resource(), allowed));
      if (!allowed && denied == null) {
        denied =
            "User is not authorized to perform: "
                + need.action()
                + " on resource: \""
                + need.resource()
                + "\" because no session policy allows the "
                + need.action()
                + " action";
      }
    }
    return Optional.ofNullable(denied);
  }

  private synchronized Optional<S3Fault> decide(HttpRequestHead head) {
    for (RuleState rule : rules) {
      if (rule.left > 0 && rule.rule.matches(head.method, head.bucket, head.key)) {
        if (++rule.matched % rule.rule.every() != 0) {
          continue;
        }
        String request = head.method + " " + head.bucket + "/" + head.key;
        int occurrence = rule.seen.merge(request, 1, Integer::sum);
        long draw =
            seed * 1_000_003L + rule.index * 10_007L + request.hashCode() * 31L + occurrence;
        if (new Random(draw).nextDouble() < rule.rule.probability()) {
          rule.left--;
          injected.add(new InjectedFault(rule.rule.fault(), head.method, head.bucket, head.key));
          return Optional.of(rule.rule.fault());
        }
      }
    }
    return Optional.empty();
  }

  private static void answer(OutputStream out, HttpRequestHead head, S3Fault.ErrorResponse error)
      throws IOException {
    String requestId = Long.toHexString(System.nanoTime()).toUpperCase(Locale.ROOT);
    byte[] body =
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                + error.code()
                + "</Code><Message>"
                + error.message()
                + "</Message><Resource>/"
                + head.bucket
                + "/"
                + head.key
                + "</Resource><RequestId>"
                + requestId
                + "</RequestId></Error>")
            .getBytes(StandardCharsets.UTF_8);
    boolean withBody = !"HEAD".equals(head.method);
    String response =
        "HTTP/1.1 "
            + error.status()
            + " "
            + switch (error.status()) {
              case 503 -> "Slow Down";
              case 403 -> "Forbidden";
              default -> "Internal Server Error";
            }
            + "\r\nContent-Type: application/xml\r\nx-amz-request-id: "
            + requestId
            + "\r\nContent-Length: "
            + (withBody ? body.length : 0)
            + "\r\nConnection: close\r\n\r\n";
    out.write(response.getBytes(StandardCharsets.ISO_8859_1));
    if (withBody) {
      out.write(body);
    }
    out.flush();
  }

  private static void reset(Socket socket) throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  /**
   * Passes the request on and the answer back; with {@code resetMidway}, resets halfway through its
   * body.
   */
  private void forward(Socket client, InputStream in, HttpRequestHead head, boolean resetMidway)
      throws IOException {
    try (Socket origin =
        new Socket(InetAddress.getLoopbackAddress(), upstream.endpoint().getPort())) {
      OutputStream toServer = origin.getOutputStream();
      toServer.write(head.bytesClosingConnection());
      toServer.flush();
      // the body (after a 100 Continue, if asked) flows on its own thread while the answer flows
      // back
      connections.execute(() -> copyQuietly(in, toServer));
      InputStream fromServer = new BufferedInputStream(origin.getInputStream());
      OutputStream toClient = client.getOutputStream();
      if (resetMidway) {
        passHalf(fromServer, toClient);
        reset(client);
        return;
      }
      fromServer.transferTo(toClient);
      toClient.flush();
    }
  }

  /**
   * Passes every interim answer (100 Continue), then the final answer's head and half its body;
   * half its head when it has no body (a write's answer), so that the client never sees it whole.
   */
  private static void passHalf(InputStream fromServer, OutputStream toClient) throws IOException {
    while (true) {
      byte[] head = HttpRequestHead.readHeadBytes(fromServer);
      if (head == null) {
        return;
      }
      String text = new String(head, StandardCharsets.ISO_8859_1);
      if (text.startsWith("HTTP/1.1 100")) {
        toClient.write(head);
        toClient.flush();
        continue;
      }
      long length = HttpRequestHead.contentLength(text);
      if (length == 0) {
        toClient.write(head, 0, head.length / 2);
      } else {
        toClient.write(head);
        toClient.write(fromServer.readNBytes((int) (length / 2)));
      }
      toClient.flush();
      return;
    }
  }

  private static void copyQuietly(InputStream from, OutputStream to) {
    try {
      byte[] buffer = new byte[64 * 1024];
      for (int n; (n = from.read(buffer)) >= 0; ) {
        to.write(buffer, 0, n);
        to.flush();
      }
    } catch (IOException closed) {
      // the connection ended
    }
  }

  /** A rule and what it has done: faults left to inject, and how often it saw each request. */
  private static final class RuleState {
    final S3FaultRule rule;
    final int index;
    final Map<String, Integer> seen = new HashMap<>();
    int matched;
    int left;

    RuleState(S3FaultRule rule, int index) {
      this.rule = rule;
      this.index = index;
      this.left = rule.times();
    }
  }
}
