package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.testkit.FaultyS3.InjectedFault;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

class FaultyS3Test {
  private static final String BUCKET = "faulty";
  private static final AtomicInteger KEYS = new AtomicInteger();
  private static LocalS3 s3;
  private static FaultyS3 faults;

  @BeforeAll
  static void start() {
    s3 = new LocalS3();
    s3.createBucket(BUCKET);
    faults = new FaultyS3(s3, 42).start();
  }

  @AfterAll
  static void stop() {
    faults.close();
    s3.close();
  }

  @AfterEach
  void clear() {
    faults.clearRules();
    faults.clearInjected();
  }

  private static String key() {
    return "t/data/file-" + KEYS.incrementAndGet() + ".bin";
  }

  /** A client through the proxy that sends each request once: every fault reaches the caller. */
  private static S3Client clientWithoutRetries() {
    return faults.newClient(AwsRetryStrategy.doNotRetry());
  }

  private static void put(String key, String text) {
    s3.client()
        .putObject(
            b -> b.bucket(BUCKET).key(key), RequestBody.fromString(text, StandardCharsets.UTF_8));
  }

  @Test
  void withoutRulesEveryRequestIsForwardedAndSigV4Holds() {
    String key = key();
    faults
        .client()
        .putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("through the proxy"));

    assertThat(s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String())
        .isEqualTo("through the proxy");
    assertThat(faults.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String())
        .isEqualTo("through the proxy");
    assertThat(faults.client().headObject(b -> b.bucket(BUCKET).key(key)).contentLength())
        .isEqualTo(17);
    assertThat(faults.client().listObjectsV2(b -> b.bucket(BUCKET).prefix(key)).contents())
        .hasSize(1);
    faults.client().deleteObject(b -> b.bucket(BUCKET).key(key));
    assertThat(s3.client().listObjectsV2(b -> b.bucket(BUCKET).prefix(key)).contents()).isEmpty();
    assertThat(faults.injected()).isEmpty();
  }

  @Test
  void icebergS3FileIoWritesInPartsAndReadsThroughTheProxy() throws IOException {
    byte[] large = new byte[11 * 1024 * 1024 + 5];
    new Random(3).nextBytes(large);
    Map<String, String> properties = new HashMap<>(faults.icebergProperties());
    properties.put("s3.multipart.size", Integer.toString(5 * 1024 * 1024));
    String location = "s3://" + BUCKET + "/" + key();
    try (S3FileIO io = new S3FileIO()) {
      io.initialize(properties);
      try (OutputStream out = io.newOutputFile(location).create()) {
        out.write(large);
      }
      try (InputStream in = io.newInputFile(location).newStream()) {
        assertThat(in.readAllBytes()).isEqualTo(large);
      }
    }
    assertThat(faults.injected()).isEmpty();
  }

  @Test
  void aFewSlowDownsAreRetriedByTheSdkAndRecorded() {
    String key = key();
    put(key, "retried");
    faults.inject(
        S3FaultRule.of(S3Fault.slowDown()).onBucket(BUCKET).onKeys(key).onMethod("GET").times(2));

    assertThat(faults.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String())
        .isEqualTo("retried");
    assertThat(faults.injected())
        .containsExactly(
            new InjectedFault(S3Fault.slowDown(), "GET", BUCKET, key),
            new InjectedFault(S3Fault.slowDown(), "GET", BUCKET, key));
  }

  @Test
  void persistentErrorsReachTheClientAsS3sOwnErrors() {
    String key = key();
    put(key, "x");
    faults.inject(S3FaultRule.of(S3Fault.slowDown()).onKeys(key).onMethod("PUT"));
    faults.inject(S3FaultRule.of(S3Fault.internalError()).onKeys(key).onMethod("GET"));

    assertThatThrownBy(
            () ->
                faults
                    .client()
                    .putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("y")))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(503);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SlowDown");
            });
    assertThatThrownBy(() -> faults.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(500);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InternalError");
            });
    // the client's 3 attempts each
    assertThat(faults.injected())
        .extracting(InjectedFault::method)
        .containsExactly("PUT", "PUT", "PUT", "GET", "GET", "GET");
    assertThat(s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String())
        .isEqualTo("x");
  }

  @Test
  void aResetConnectionIsAnIoErrorOfTheClient() {
    String key = key();
    put(key, "x");
    faults.inject(S3FaultRule.of(S3Fault.connectionReset()).onKeys(key));

    assertThatThrownBy(() -> faults.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)))
        .isInstanceOf(SdkClientException.class)
        .hasRootCauseInstanceOf(java.net.SocketException.class);
    assertThat(faults.injected())
        .isNotEmpty()
        .allSatisfy(f -> assertThat(f.fault()).isEqualTo(S3Fault.connectionReset()));
  }

  @Test
  void aReadResetMidBodyIsResumedByS3FileIo() throws IOException {
    String key = key();
    byte[] bytes = new byte[200_000];
    new Random(5).nextBytes(bytes);
    s3.client().putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(bytes));
    faults.inject(S3FaultRule.of(S3Fault.resetMidResponse()).onKeys(key).onMethod("GET").times(1));

    try (S3FileIO io = new S3FileIO()) {
      io.initialize(faults.icebergProperties());
      try (InputStream in = io.newInputFile("s3://" + BUCKET + "/" + key).newStream()) {
        assertThat(in.readAllBytes()).isEqualTo(bytes);
      }
    }
    assertThat(faults.injected()).hasSize(1);
  }

  @Test
  void aWriteWhoseAnswerIsLostLandsAnyway() {
    String key = key();
    faults.inject(S3FaultRule.of(S3Fault.resetMidResponse()).onKeys(key).onMethod("PUT").times(1));

    try (S3Client once = clientWithoutRetries()) {
      assertThatThrownBy(
              () ->
                  once.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("landed")))
          .isInstanceOf(SdkClientException.class);
    }

    assertThat(faults.injected()).hasSize(1);
    assertThat(s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String())
        .isEqualTo("landed");
  }

  @Test
  void theSameSeedFaultsTheSameRequests() {
    List<String> keys = List.of(key(), key(), key(), key(), key(), key(), key(), key());
    keys.forEach(key -> put(key, "v"));
    List<List<String>> runs = new java.util.ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (FaultyS3 seeded = new FaultyS3(s3, 7).start()) {
        seeded.inject(
            S3FaultRule.of(S3Fault.internalError()).onMethod("HEAD").withProbability(0.5));
        for (String key : keys) {
          try {
            seeded.client().headObject(b -> b.bucket(BUCKET).key(key));
          } catch (S3Exception expected) {
            // three faults in a row
          }
        }
        runs.add(seeded.injected().stream().map(InjectedFault::key).toList());
      }
    }
    assertThat(runs.get(0)).isNotEmpty().isEqualTo(runs.get(1));
    assertThat(runs.get(0).stream().distinct().count()).isLessThan(keys.size());
  }

  @Test
  void everyNthFaultsTheNthMatchingRequestsWhateverTheirKeys() {
    List<String> keys = List.of(key(), key(), key(), key(), key(), key(), key(), key());
    keys.forEach(key -> put(key, "v"));
    faults.inject(S3FaultRule.of(S3Fault.internalError()).onMethod("HEAD").everyNth(3).times(2));

    try (S3Client once = clientWithoutRetries()) {
      for (String key : keys) {
        try {
          once.headObject(b -> b.bucket(BUCKET).key(key));
        } catch (S3Exception expected) {
          // the 3rd and 6th
        }
      }
    }

    assertThat(faults.injected())
        .extracting(InjectedFault::key)
        .containsExactly(keys.get(2), keys.get(5));
  }
}
