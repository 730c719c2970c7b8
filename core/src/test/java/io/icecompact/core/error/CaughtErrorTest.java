package io.icecompact.core.error;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupFailure;
import org.junit.jupiter.api.Test;

class CaughtErrorTest {
  @Test
  void lambdaErrorDocumentGivesItsMessageWithoutTheStackTrace() {
    CaughtError error =
        new CaughtError(
            "io.icecompact.core.error.CorruptInputFileException",
            "{\"errorMessage\":\"Cannot rewrite data file s3://b/t/data/x.parquet: not a Parquet file\","
                + "\"errorType\":\"io.icecompact.core.error.CorruptInputFileException\","
                + "\"stackTrace\":[\"io.icecompact.worker.GenericRewritePath.copyFile(GenericRewritePath.java:140)\"]}");

    assertThat(error.shortType()).isEqualTo("CorruptInputFileException");
    assertThat(error.message())
        .isEqualTo("Cannot rewrite data file s3://b/t/data/x.parquet: not a Parquet file");
  }

  @Test
  void plainTextCauseIsKeptAsItIs() {
    CaughtError error = new CaughtError("States.Timeout", "Task timed out after 900 seconds");

    // an error AWS names keeps its prefix: it says who stopped the task
    assertThat(error.shortType()).isEqualTo("States.Timeout");
    assertThat(new CaughtError("Sandbox.Timedout", "{}").shortType()).isEqualTo("Sandbox.Timedout");
    assertThat(error.message()).isEqualTo("Task timed out after 900 seconds");
    assertThat(new CaughtError(null, null).message()).isEmpty();
  }

  /**
   * The embedded runner names a group's failure exactly as the Map's Catch names the same error.
   */
  @Test
  void bothRunnersNameAFailureAlike() {
    for (RuntimeException failure :
        java.util.List.of(
            new IllegalStateException("boom"),
            new CorruptInputFileException("bad footer"),
            new java.io.UncheckedIOException(new java.io.IOException("reset")))) {
      GroupFailure embedded = GroupFailure.of(2, failure);
      CaughtError caught =
          new CaughtError(
              failure.getClass().getName(), "{\"errorMessage\":\"" + failure.getMessage() + "\"}");

      assertThat(embedded.errorType())
          .isEqualTo(caught.shortType())
          .isEqualTo(failure.getClass().getSimpleName());
      assertThat(embedded.message()).isEqualTo(caught.message());
    }
  }
}
