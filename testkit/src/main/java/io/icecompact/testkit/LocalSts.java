package io.icecompact.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * STS's AssumeRole (the query API, as the AWS SDK sends it) in the test JVM, so that code assuming
 * a role with a session policy runs its real path: each call returns temporary credentials whose
 * session token {@link FaultyS3} then holds to the call's {@code Policy}.
 *
 * <p>The credentials are {@link LocalS3}'s own key pair plus a fresh session token: s3proxy knows
 * one identity, and this keeps every request's SigV4 signature checked by s3proxy itself (the token
 * header is signed, so it cannot be swapped without breaking the signature) instead of a proxy
 * re-signing requests it would have to trust. Not modelled: distinct secrets per session, the
 * role's trust policy, the role's own permissions (only the session policy is enforced), the
 * unpublished packed-size limit, and expiry (tokens stay valid until the proxy closes). The
 * request's own signature is not checked. Limits that are checked, as STS answers them: {@code
 * Policy} at most 2,048 characters of U+0020 to U+00FF, {@code DurationSeconds} 900 to 43,200.
 */
public final class LocalSts implements AutoCloseable {
  /** One AssumeRole call as received. */
  public record AssumedRole(
      String roleArn, String sessionName, String policy, int durationSeconds, String token) {}

  private final FaultyS3 s3;
  private final List<AssumedRole> assumed = new CopyOnWriteArrayList<>();
  private final java.util.Queue<String[]> failures =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private HttpServer server;

  /** An STS whose sessions {@code s3} enforces. */
  public LocalSts(FaultyS3 s3) {
    this.s3 = s3;
  }

  public synchronized LocalSts start() {
    if (server != null) {
      return this;
    }
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot listen for the local STS", e);
    }
    server.createContext("/", this::handle);
    server.start();
    return this;
  }

  public URI endpoint() {
    start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /**
   * The next call is answered with {@code status} and error {@code code} (e.g. 400 {@code
   * Throttling}, 403 {@code AccessDenied}), as STS answers it.
   */
  public LocalSts failNext(int status, String code) {
    failures.add(new String[] {Integer.toString(status), code});
    return this;
  }

  /** Every AssumeRole call answered with credentials, in order. */
  public List<AssumedRole> assumed() {
    return List.copyOf(assumed);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Map<String, String> form =
          form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      String[] failure = failures.poll();
      if (failure != null) {
        error(exchange, Integer.parseInt(failure[0]), failure[1], "Injected by LocalSts.failNext");
        return;
      }
      if (!"AssumeRole".equals(form.get("Action"))) {
        error(exchange, "InvalidAction", "Only AssumeRole is served: " + form.get("Action"));
        return;
      }
      String policy = form.get("Policy");
      if (policy != null
          && (policy.length() > 2048
              || policy
                  .chars()
                  .anyMatch(c -> c > 0xFF || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')))) {
        error(
            exchange,
            "ValidationError",
            "1 validation error detected: Value at 'policy' failed to satisfy constraint: Member"
                + " must have length less than or equal to 2048");
        return;
      }
      int duration = Integer.parseInt(form.getOrDefault("DurationSeconds", "3600"));
      if (duration < 900 || duration > 43_200) {
        error(exchange, "ValidationError", "DurationSeconds " + duration + " is out of 900..43200");
        return;
      }
      String token = "local-sts-" + UUID.randomUUID();
      if (policy != null) {
        s3.admitSession(token, policy);
      } else {
        s3.admitSession(
            token, "{\"Statement\":{\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"*\"}}");
      }
      String roleArn = form.get("RoleArn");
      String sessionName = form.get("RoleSessionName");
      assumed.add(new AssumedRole(roleArn, sessionName, policy, duration, token));
      String xml =
          "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>"
              + "<Credentials><AccessKeyId>"
              + LocalS3.ACCESS_KEY_ID
              + "</AccessKeyId><SecretAccessKey>"
              + LocalS3.SECRET_ACCESS_KEY
              + "</SecretAccessKey><SessionToken>"
              + token
              + "</SessionToken><Expiration>"
              + Instant.now().plusSeconds(duration)
              + "</Expiration></Credentials><AssumedRoleUser><Arn>"
              + roleArn
              + "/"
              + sessionName
              + "</Arn><AssumedRoleId>AROALOCAL:"
              + sessionName
              + "</AssumedRoleId></AssumedRoleUser><PackedPolicySize>"
              + (policy == null ? 0 : policy.length() * 100 / 2048)
              + "</PackedPolicySize></AssumeRoleResult><ResponseMetadata><RequestId>"
              + UUID.randomUUID()
              + "</RequestId></ResponseMetadata></AssumeRoleResponse>";
      send(exchange, 200, xml);
    }
  }

  private static void error(HttpExchange exchange, String code, String message) throws IOException {
    error(exchange, 400, code, message);
  }

  private static void error(HttpExchange exchange, int status, String code, String message)
      throws IOException {
    send(
        exchange,
        status,
        "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type><Code>"
            + code
            + "</Code><Message>"
            + message
            + "</Message></Error><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ErrorResponse>");
  }

  private static void send(HttpExchange exchange, int status, String xml) throws IOException {
    byte[] body = xml.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/xml");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static Map<String, String> form(String body) {
    Map<String, String> form = new HashMap<>();
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        form.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return form;
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }
}
