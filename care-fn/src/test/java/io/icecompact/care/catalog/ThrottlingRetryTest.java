package io.icecompact.care.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.glue.model.AccessDeniedException;
import software.amazon.awssdk.services.glue.model.GlueException;

/** Which failures are throttling, and how many attempts and waits a throttled call gets. */
class ThrottlingRetryTest {
  private final List<Duration> waits = new ArrayList<>();
  private final ThrottlingRetry retry =
      new ThrottlingRetry(6, Duration.ofMillis(200), Duration.ofSeconds(1), waits::add);

  static RuntimeException glueThrottling() {
    return GlueException.builder()
        .statusCode(400)
        .awsErrorDetails(
            AwsErrorDetails.builder()
                .errorCode("ThrottlingException")
                .errorMessage("Rate exceeded")
                .build())
        .message("Rate exceeded")
        .build();
  }

  @Test
  void throttlingIsRecognisedThroughTheCauseChain() {
    assertThat(ThrottlingRetry.isThrottling(glueThrottling())).isTrue();
    assertThat(ThrottlingRetry.isThrottling(new RuntimeException("Iceberg", glueThrottling())))
        .isTrue();
    assertThat(ThrottlingRetry.isThrottling(GlueException.builder().statusCode(503).build()))
        .isTrue();
    assertThat(ThrottlingRetry.isThrottling(GlueException.builder().statusCode(429).build()))
        .isTrue();
    assertThat(ThrottlingRetry.isThrottling(new ServiceUnavailableException("busy"))).isTrue();
    assertThat(
            ThrottlingRetry.isThrottling(AccessDeniedException.builder().statusCode(400).build()))
        .isFalse();
    assertThat(ThrottlingRetry.isThrottling(new NoSuchTableException("gone"))).isFalse();
  }

  @Test
  void aThrottledCallIsRetriedWithGrowingCappedWaits() {
    AtomicInteger calls = new AtomicInteger();
    String result =
        retry.call(
            "listing",
            () -> {
              if (calls.incrementAndGet() < 6) {
                throw glueThrottling();
              }
              return "listed";
            });
    assertThat(result).isEqualTo("listed");
    assertThat(calls).hasValue(6);
    assertThat(waits).hasSize(5);
    // full jitter under ceilings 200, 400, 800, 1000 (the cap), 1000 ms
    long[] ceilings = {200, 400, 800, 1000, 1000};
    for (int i = 0; i < waits.size(); i++) {
      assertThat(waits.get(i).toMillis()).isBetween(0L, ceilings[i]);
    }
  }

  @Test
  void throttlingOnEveryAttemptIsThrownTypedAfterTheLast() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                retry.call(
                    "Glue GetTables of database finance",
                    () -> {
                      calls.incrementAndGet();
                      throw glueThrottling();
                    }))
        .isInstanceOf(CatalogThrottledException.class)
        .hasMessage("Glue GetTables of database finance was throttled on each of 6 attempts")
        .hasCauseInstanceOf(GlueException.class);
    assertThat(calls).hasValue(6);
  }

  @Test
  void anythingElseIsThrownAtOnce() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                retry.call(
                    "loading",
                    () -> {
                      calls.incrementAndGet();
                      throw new NoSuchTableException("Table does not exist: db.t");
                    }))
        .isInstanceOf(NoSuchTableException.class);
    assertThat(calls).hasValue(1);
    assertThat(waits).isEmpty();
  }
}
