package io.icecompact.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The IAM actions and resources one path-style S3 request needs, as S3 documents them per
 * operation: what {@link FaultyS3} checks against a session policy. A DeleteObjects request needs
 * {@code s3:DeleteObject} on every key of its body, each checked on its own (S3 then answers each
 * key's own AccessDenied inside a 200; the stand-in refuses the whole request, which is stricter).
 */
final class S3Authorization {
  /** One action on one resource ARN. */
  record Need(String action, String resource) {}

  private static final Pattern DELETE_KEY = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);

  private S3Authorization() {}

  /** Whether the proxy must read the body to know what the request does (DeleteObjects). */
  static boolean needsBody(HttpRequestHead head) {
    return head.method.equals("POST") && head.hasQueryParameter("delete");
  }

  static List<Need> of(HttpRequestHead head, byte[] body) {
    if (needsBody(head)) {
      return deleteObjects(head, body);
    }
    String bucketArn = "arn:aws:s3:::" + head.bucket;
    String objectArn = bucketArn + "/" + head.key;
    boolean onObject = !head.key.isEmpty();
    String method = head.method;
    if (!onObject) {
      return List.of(new Need(bucketAction(head), bucketArn));
    }
    if (method.equals("GET") || method.equals("HEAD")) {
      if (head.hasQueryParameter("uploadId")) {
        return List.of(new Need("s3:ListMultipartUploadParts", objectArn));
      }
      return List.of(
          new Need(
              head.hasQueryParameter("versionId") ? "s3:GetObjectVersion" : "s3:GetObject",
              objectArn));
    }
    if (method.equals("PUT") || method.equals("POST")) {
      // PutObject, CreateMultipartUpload (?uploads), UploadPart and CompleteMultipartUpload
      // (?uploadId) are all s3:PutObject; a copy also reads its source
      List<Need> needs = new ArrayList<>(List.of(new Need("s3:PutObject", objectArn)));
      head.header("x-amz-copy-source")
          .ifPresent(
              source ->
                  needs.add(
                      new Need(
                          "s3:GetObject",
                          "arn:aws:s3:::"
                              + java.net.URLDecoder.decode(
                                  source.startsWith("/") ? source.substring(1) : source,
                                  StandardCharsets.UTF_8))));
      return needs;
    }
    if (method.equals("DELETE")) {
      if (head.hasQueryParameter("uploadId")) {
        return List.of(new Need("s3:AbortMultipartUpload", objectArn));
      }
      return List.of(
          new Need(
              head.hasQueryParameter("versionId") ? "s3:DeleteObjectVersion" : "s3:DeleteObject",
              objectArn));
    }
    return List.of(new Need("s3:Unknown" + method, objectArn));
  }

  private static String bucketAction(HttpRequestHead head) {
    return switch (head.method) {
      case "GET" ->
          head.hasQueryParameter("location")
              ? "s3:GetBucketLocation"
              : head.hasQueryParameter("uploads")
                  ? "s3:ListBucketMultipartUploads"
                  : head.hasQueryParameter("versioning")
                      ? "s3:GetBucketVersioning"
                      : head.hasQueryParameter("versions")
                          ? "s3:ListBucketVersions"
                          : "s3:ListBucket";
      case "HEAD" -> "s3:ListBucket";
      case "PUT" ->
          head.hasQueryParameter("versioning")
              ? "s3:PutBucketVersioning"
              : head.hasQueryParameter("lifecycle")
                  ? "s3:PutLifecycleConfiguration"
                  : head.hasQueryParameter("policy") ? "s3:PutBucketPolicy" : "s3:CreateBucket";
      case "DELETE" -> "s3:DeleteBucket";
      default -> "s3:Unknown" + head.method;
    };
  }

  /** DeleteObjects: one s3:DeleteObject on each key of the body. */
  private static List<Need> deleteObjects(HttpRequestHead head, byte[] body) {
    List<Need> needs = new ArrayList<>();
    Matcher keys = DELETE_KEY.matcher(new String(body, StandardCharsets.UTF_8));
    while (keys.find()) {
      needs.add(
          new Need(
              "s3:DeleteObject", "arn:aws:s3:::" + head.bucket + "/" + unescape(keys.group(1))));
    }
    return needs;
  }

  private static String unescape(String xml) {
    return xml.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#13;", "\r")
        .replace("&#10;", "\n")
        .replace("&amp;", "&");
  }
}
