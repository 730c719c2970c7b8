package io.icecompact.committer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

/** How long a job's commit keeps racing, and the retry settings its Iceberg commit runs with. */
class CommitDeadlineTest {

  @Test
  void theTablesTotalRetryTimeBoundsTheAttemptsWithShortEqualWaits() {
    CommitDeadline deadline =
        CommitDeadline.startingNow(
            Map.of(
                TableProperties.COMMIT_TOTAL_RETRY_TIME_MS,
                "120000",
                TableProperties.COMMIT_NUM_RETRIES,
                "2",
                TableProperties.COMMIT_MAX_RETRY_WAIT_MS,
                "60000"),
            OptionalLong.empty());

    assertThat(deadline.bound()).isEqualTo("commit.retry.total-timeout-ms=120000");
    assertThat(deadline.passed()).isFalse();
    Map<String, String> settings = deadline.retrySettings();
    assertThat(Long.parseLong(settings.get(TableProperties.COMMIT_TOTAL_RETRY_TIME_MS)))
        .isBetween(119_000L, 120_000L);
    assertThat(Integer.parseInt(settings.get(TableProperties.COMMIT_NUM_RETRIES)))
        .as("the count does not bound the attempts")
        .isGreaterThan(100_000);
    assertThat(settings)
        .containsEntry(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "100")
        .containsEntry(TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "100");
  }

  @Test
  void inTheCommitterLambdaItStopsAMinuteBeforeTheInvocationEnds() {
    CommitDeadline deadline = CommitDeadline.startingNow(Map.of(), OptionalLong.of(61_500));

    assertThat(deadline.bound()).isEqualTo("the committer's remaining time");
    assertThat(
            Long.parseLong(
                deadline.retrySettings().get(TableProperties.COMMIT_TOTAL_RETRY_TIME_MS)))
        .isBetween(1_000L, 1_500L);
  }

  @Test
  void anInvocationWithLessThanItsMarginLeftHasNoTimeToRace() {
    CommitDeadline deadline = CommitDeadline.startingNow(Map.of(), OptionalLong.of(30_000));

    assertThat(deadline.passed()).isTrue();
    assertThat(deadline.retrySettings())
        .containsEntry(TableProperties.COMMIT_TOTAL_RETRY_TIME_MS, "1");
  }
}
