package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.ApplicationException;
import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.GroupAttempts;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.error.WorkerOutOfMemoryException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two runners of one pipeline retry a group alike: the state machine's {@code RewriteGroup}
 * Retry (read from the definition) and the embedded runner ({@link GroupAttempts}) allow the same
 * attempts for the same errors, and both record every other failure as the group's (the Map's Catch
 * of {@code States.ALL}).
 */
class RetryParityTest {

  @Test
  void theMapRetriesATransientFailureAsOftenAsTheEmbeddedRunner() throws IOException {
    JsonNode rewriteGroup = rewriteGroupState();
    JsonNode transientRetry = retryListing(rewriteGroup, TransientException.class.getName());

    assertThat(transientRetry)
        .as("a Retry of RewriteGroup lists " + TransientException.class.getName())
        .isNotNull();
    assertThat(transientRetry.get("MaxAttempts").asInt() + 1)
        .as("attempts in all: the first and the Retry's MaxAttempts")
        .isEqualTo(GroupAttempts.MAX);
    RuntimeException failure =
        GroupAttempts.classify(new TransientException("throttled", null), 0, "job");
    for (int attempt = 1; attempt < GroupAttempts.MAX; attempt++) {
      assertThat(GroupAttempts.retried(failure, attempt))
          .as("retried after attempt %d", attempt)
          .isTrue();
    }
    assertThat(GroupAttempts.retried(failure, GroupAttempts.MAX)).isFalse();
  }

  @Test
  void anUntypedFailureOfTheEnvironmentIsTransientForBothAndApplicationErrorsForNeither()
      throws IOException {
    JsonNode rewriteGroup = rewriteGroupState();
    List<String> retried = new ArrayList<>();
    rewriteGroup
        .get("Retry")
        .forEach(retry -> retry.get("ErrorEquals").forEach(error -> retried.add(error.asText())));

    RuntimeException timedOut =
        GroupAttempts.classify(
            new UncheckedIOException(new SocketTimeoutException("Read timed out")), 3, "job-1");
    assertThat(timedOut)
        .isInstanceOf(TransientException.class)
        .hasMessageStartingWith("Cannot rewrite group 3 of job job-1: ");
    assertThat(retried).contains(timedOut.getClass().getName());

    for (ApplicationException application :
        List.<ApplicationException>of(
            new CorruptInputFileException("bad footer"),
            new WorkerOutOfMemoryException(
                0, new OutOfMemoryError("Java heap space"), 1L << 30, "setting"))) {
      assertThat(GroupAttempts.retried(GroupAttempts.classify(application, 0, "job"), 1))
          .as("embedded: %s is not retried", application.getClass().getSimpleName())
          .isFalse();
      assertThat(retried)
          .as("the Map does not retry %s", application.getClass().getName())
          .doesNotContain(application.getClass().getName(), "States.ALL", "States.TaskFailed");
    }
    JsonNode catchAll = rewriteGroup.get("Catch").get(0);
    assertThat(catchAll.get("ErrorEquals").get(0).asText()).isEqualTo("States.ALL");
    assertThat(catchAll.get("Next").asText())
        .as("any other failure is recorded as the group's")
        .isEqualTo("RecordGroupFailure");
  }

  private static JsonNode rewriteGroupState() throws IOException {
    return CompactionDefinition.state(CompactionDefinition.source().toFile(), "RewriteGroup");
  }

  private static JsonNode retryListing(JsonNode state, String error) {
    for (JsonNode retry : state.get("Retry")) {
      for (JsonNode listed : retry.get("ErrorEquals")) {
        if (listed.asText().equals(error)) {
          return retry;
        }
      }
    }
    return null;
  }
}
