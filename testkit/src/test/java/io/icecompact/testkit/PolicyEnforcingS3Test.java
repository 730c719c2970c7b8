package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.testkit.FaultyS3.PolicyDecision;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** {@link FaultyS3}'s policy enforcement: each S3 operation mapped to its IAM action. */
class PolicyEnforcingS3Test {
  private static final String BUCKET = "enforced";
  private static final String POLICY =
      "{\"Version\":\"2012-10-17\",\"Statement\":["
          + "{\"Effect\":\"Allow\",\"NotAction\":\"s3:*\",\"Resource\":\"*\"},"
          + "{\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\",\"s3:ListBucket\"],\"Resource\":\"*\"},"
          + "{\"Effect\":\"Allow\",\"Action\":[\"s3:PutObject\",\"s3:DeleteObject\",\"s3:AbortMultipartUpload\"],"
          + "\"Resource\":\"arn:aws:s3:::enforced/wh/t/*\"}]}";
  private static LocalS3 s3;
  private static FaultyS3 proxy;

  @BeforeAll
  static void start() {
    s3 = new LocalS3();
    s3.createBucket(BUCKET);
    proxy = new FaultyS3(s3, 1).start();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    s3.close();
  }

  @AfterEach
  void clear() {
    proxy.stopEnforcing();
    proxy.clearDecisions();
  }

  @Test
  void writesInsideTheFolderPassAndOutsideAreDeniedWithAccessDenied() {
    S3Client client = proxy.client();
    client.putObject(b -> b.bucket(BUCKET).key("wh/other/data/x"), RequestBody.fromString("n"));
    proxy.enforce(POLICY);
    client.putObject(b -> b.bucket(BUCKET).key("wh/t/data/a"), RequestBody.fromString("a"));
    assertThat(client.getObjectAsBytes(b -> b.bucket(BUCKET).key("wh/other/data/x")).asUtf8String())
        .isEqualTo("n");
    assertThatThrownBy(
            () ->
                client.putObject(
                    b -> b.bucket(BUCKET).key("wh/other/data/y"), RequestBody.fromString("y")))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(403);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
            });
    assertThatThrownBy(() -> client.deleteObject(b -> b.bucket(BUCKET).key("wh/other/data/x")))
        .isInstanceOf(S3Exception.class);
    assertThat(proxy.decisions())
        .contains(
            new PolicyDecision("s3:PutObject", "arn:aws:s3:::enforced/wh/t/data/a", true),
            new PolicyDecision("s3:GetObject", "arn:aws:s3:::enforced/wh/other/data/x", true),
            new PolicyDecision("s3:PutObject", "arn:aws:s3:::enforced/wh/other/data/y", false),
            new PolicyDecision("s3:DeleteObject", "arn:aws:s3:::enforced/wh/other/data/x", false));
    proxy.stopEnforcing();
    assertThat(client.headObject(b -> b.bucket(BUCKET).key("wh/other/data/x")).contentLength())
        .as("the denied delete deleted nothing")
        .isEqualTo(1);
  }

  @Test
  void aBatchDeleteWithOneKeyOutsideIsDeniedWhole() {
    S3Client client = proxy.client();
    client.putObject(b -> b.bucket(BUCKET).key("wh/t/data/b"), RequestBody.fromString("b"));
    proxy.enforce(POLICY);
    assertThatThrownBy(
            () ->
                client.deleteObjects(
                    b ->
                        b.bucket(BUCKET)
                            .delete(
                                d ->
                                    d.objects(
                                        ObjectIdentifier.builder().key("wh/t/data/b").build(),
                                        ObjectIdentifier.builder().key("wh/t2/data/&c").build()))))
        .isInstanceOf(S3Exception.class);
    assertThat(proxy.decisions())
        .containsExactly(
            new PolicyDecision("s3:DeleteObject", "arn:aws:s3:::enforced/wh/t/data/b", true),
            new PolicyDecision("s3:DeleteObject", "arn:aws:s3:::enforced/wh/t2/data/&c", false));
    client.deleteObjects(
        b ->
            b.bucket(BUCKET)
                .delete(d -> d.objects(ObjectIdentifier.builder().key("wh/t/data/b").build())));
    assertThat(client.listObjectsV2(b -> b.bucket(BUCKET).prefix("wh/t/data/b")).keyCount())
        .isZero();
  }

  @Test
  void multipartCallsArePutObjectAndTheAbortIsItsOwnAction() {
    S3Client client = proxy.client();
    proxy.enforce(POLICY);
    String key = "wh/t/data/big";
    String upload = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    String etag =
        client
            .uploadPart(
                b -> b.bucket(BUCKET).key(key).uploadId(upload).partNumber(1),
                RequestBody.fromString("part"))
            .eTag();
    client.completeMultipartUpload(
        b ->
            b.bucket(BUCKET)
                .key(key)
                .uploadId(upload)
                .multipartUpload(
                    m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
    String other = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key + "2")).uploadId();
    client.abortMultipartUpload(b -> b.bucket(BUCKET).key(key + "2").uploadId(other));
    List<String> actions = proxy.decisions().stream().map(PolicyDecision::action).toList();
    assertThat(actions)
        .containsExactly(
            "s3:PutObject",
            "s3:PutObject",
            "s3:PutObject",
            "s3:PutObject",
            "s3:AbortMultipartUpload");
    assertThat(proxy.decisions()).allMatch(PolicyDecision::allowed);
  }

  @Test
  void aSessionTokenIsHeldToItsPolicyAndAnUnknownTokenIsDenied() {
    // LocalSts admits its sessions this way; the AssumeRole path itself runs in engine's
    // TableSessionPolicyOnLocalS3Test
    proxy.admitSession("token-1", POLICY);
    try (S3Client session = sessionClient("token-1");
        S3Client forged = sessionClient("not-issued")) {
      session.putObject(b -> b.bucket(BUCKET).key("wh/t/data/s"), RequestBody.fromString("s"));
      assertThatThrownBy(
              () ->
                  session.putObject(
                      b -> b.bucket(BUCKET).key("wh/u/data/s"), RequestBody.fromString("s")))
          .isInstanceOf(S3Exception.class);
      assertThatThrownBy(() -> forged.getObjectAsBytes(b -> b.bucket(BUCKET).key("wh/t/data/s")))
          .isInstanceOf(S3Exception.class);
    }
  }

  private static S3Client sessionClient(String token) {
    return S3Client.builder()
        .endpointOverride(proxy.endpoint())
        .region(Region.of(LocalS3.REGION))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsSessionCredentials.create(
                    LocalS3.ACCESS_KEY_ID, LocalS3.SECRET_ACCESS_KEY, token)))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }
}
