package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * S3's conditional create ({@code PutObject} with {@code If-None-Match: *}) as the local stand-in
 * answers it: code that relies on it (a worker's attempt claim) is only tested if the stand-in
 * enforces it, one request after another and under a race alike.
 */
class LocalS3ConditionalPutTest {
  private static final String BUCKET = "conditional";
  private static LocalS3 s3;

  @BeforeAll
  static void start() {
    s3 = new LocalS3();
    s3.createBucket(BUCKET);
  }

  @AfterAll
  static void stop() {
    s3.close();
  }

  @Test
  void aSecondCreateOfTheSameKeyIsRefusedWith412() {
    assertThat(created("one/key", "first")).isTrue();
    assertThatThrownBy(() -> putIfAbsent("one/key", "second"))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    String stored =
        s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key("one/key")).asUtf8String();
    assertThat(stored).isEqualTo("first");
  }

  /**
   * Many concurrent creates of one key: exactly one may succeed, as on S3. s3proxy 4.1.0's store
   * links the uploaded temporary file to the key's name ({@code Files.createLink}), which fails
   * when the name exists, so its check and its write are one step; this test is what would notice a
   * version where they are not.
   */
  @Test
  void ofManyRacingCreatesOfOneKeyExactlyOneSucceeds() throws Exception {
    int threads = 12;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 40; round++) {
        String key = "race/key-" + round;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> outcomes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          String body = "writer-" + t + "-of-round-" + round;
          outcomes.add(
              pool.submit(
                  () -> {
                    go.await();
                    return created(key, body);
                  }));
        }
        go.countDown();
        List<Integer> winners = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          if (outcomes.get(t).get()) {
            winners.add(t);
          }
        }
        assertThat(winners).as("creates of %s that succeeded", key).hasSize(1);
        assertThat(stored(key)).isEqualTo("writer-" + winners.get(0) + "-of-round-" + round);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Whether this create of {@code key} wrote it. A 412 (the key exists) or 409 (another conditional
   * write of it was in flight) on a retried attempt, with this create's body stored, is this
   * create's own first attempt meeting itself: s3proxy closes connections it answered early, or a
   * loaded machine breaks one mid-body after the server stored it, and the SDK retries the create
   * whose answer was lost (a full build on a busy machine saw it once, on the first create).
   */
  private static boolean created(String key, String body) {
    try {
      putIfAbsent(key, body);
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 409) {
        return e.numAttempts() != null && e.numAttempts() > 1 && body.equals(stored(key));
      }
      throw e;
    }
  }

  private static String stored(String key) {
    return s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String();
  }

  private static void putIfAbsent(String key, String body) {
    s3.client()
        .putObject(b -> b.bucket(BUCKET).key(key).ifNoneMatch("*"), RequestBody.fromString(body));
  }
}
