package io.icecompact.testkit;

import java.time.Duration;

/**
 * What {@link FaultyS3} does to a request a rule picked, instead of (or on the way to) forwarding
 * it to the real server. Each is something S3 or the network does to clients in production.
 */
public sealed interface S3Fault {

  /** {@code 503 SlowDown}: S3's answer when a prefix gets more requests than it can take. */
  static S3Fault slowDown() {
    return new ErrorResponse(503, "SlowDown", "Please reduce your request rate.");
  }

  /** {@code 500 InternalError}: S3's answer to a request it failed internally. */
  static S3Fault internalError() {
    return new ErrorResponse(
        500, "InternalError", "We encountered an internal error. Please try again.");
  }

  /**
   * {@code 403 AccessDenied}: S3's answer to a caller whose role (bucket policy, KMS key grant)
   * does not allow the request; on a whole bucket, another team's bucket this role cannot read.
   */
  static S3Fault accessDenied() {
    return new ErrorResponse(403, "AccessDenied", "Access Denied");
  }

  /** The connection is reset (TCP RST) before any answer, after the request's head was read. */
  static S3Fault connectionReset() {
    return new ConnectionReset();
  }

  /**
   * The request reaches the server (so a write lands), then the connection is reset once the
   * answer's head and half its body were passed on: a read that breaks mid-body, or a write whose
   * outcome the client cannot know.
   */
  static S3Fault resetMidResponse() {
    return new ResetMidResponse();
  }

  /** The request is held for {@code delay} before it is forwarded: a slow server or network. */
  static S3Fault delay(Duration delay) {
    return new Delay(delay);
  }

  /**
   * An S3 error answer: the status, and S3's XML error body with {@code code} and {@code message}.
   */
  record ErrorResponse(int status, String code, String message) implements S3Fault {}

  record ConnectionReset() implements S3Fault {}

  record ResetMidResponse() implements S3Fault {}

  record Delay(Duration delay) implements S3Fault {}
}
