package io.icecompact.core.error;

import static org.assertj.core.api.Assertions.assertThat;

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
}
