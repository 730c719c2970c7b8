package io.icecompact.core.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.BindException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class FailureClassifierTest {

  @Test
  void socketTimeoutNestedInARuntimeExceptionIsTransient() {
    SocketTimeoutException timeout = new SocketTimeoutException("Read timed out");
    RuntimeException wrapped = new RuntimeException("Failed to read footer", timeout);

    IcecompactException classified =
        FailureClassifier.classify(
            wrapped, "Cannot rewrite data file s3://b/f.parquet", CorruptInputFileException::new);

    assertThat(classified).isExactlyInstanceOf(TransientException.class);
    assertThat(classified.retryable()).isTrue();
    assertThat(classified.getCause()).isSameAs(wrapped);
    assertThat(classified)
        .hasMessage(
            "Cannot rewrite data file s3://b/f.parquet: RuntimeException: Failed to read footer"
                + " (caused by SocketTimeoutException: Read timed out)");
  }

  @Test
  void deeplyNestedTimeoutIsTransient() {
    Throwable failure =
        new IllegalStateException(
            "outer",
            new RuntimeException("middle", new IOException("io", new SocketTimeoutException())));
    assertThat(FailureClassifier.isTransient(failure)).isTrue();
  }

  @Test
  void plainIllegalStateExceptionBecomesTheGivenApplicationType() {
    IllegalStateException failure = new IllegalStateException("Not a Parquet file (magic: XYZW)");

    IcecompactException classified =
        FailureClassifier.classify(
            failure, "Cannot rewrite data file /t/data/f.parquet", CorruptInputFileException::new);

    assertThat(classified).isExactlyInstanceOf(CorruptInputFileException.class);
    assertThat(classified.retryable()).isFalse();
    assertThat(classified.getCause()).isSameAs(failure);
    assertThat(classified)
        .hasMessage(
            "Cannot rewrite data file /t/data/f.parquet: IllegalStateException: Not a Parquet file"
                + " (magic: XYZW)");
  }

  @Test
  void applicationMessageNamesContextAndRootCause() {
    RuntimeException failure =
        new RuntimeException("Failed to open", new IllegalStateException("bad footer length"));

    IcecompactException classified =
        FailureClassifier.classify(failure, "Reading group 3", GroupRewriteException::new);

    assertThat(classified).isExactlyInstanceOf(GroupRewriteException.class);
    assertThat(classified)
        .hasMessage(
            "Reading group 3: RuntimeException: Failed to open (caused by IllegalStateException:"
                + " bad footer length)");
    assertThat(classified.getCause()).isSameAs(failure);
  }

  @Test
  void alreadyTypedFailuresPassThrough() {
    RowCountMismatchException typed = new RowCountMismatchException("3 != 4");
    assertThat(FailureClassifier.classify(typed, "ctx", CorruptInputFileException::new))
        .isSameAs(typed);
  }

  @Test
  void throttlingAndServerErrorsAreTransientButBindIsNot() {
    assertThat(FailureClassifier.isTransient(new RuntimeException("Please Slow Down"))).isTrue();
    assertThat(FailureClassifier.isTransient(new RuntimeException("x (Status Code: 503)")))
        .isTrue();
    assertThat(FailureClassifier.isTransient(new BindException("Address in use"))).isFalse();
    assertThat(FailureClassifier.isTransient(new IllegalArgumentException("bad"))).isFalse();
  }

  @Test
  void anUntypedServiceErrorBecomesRetryableAndAnythingElseIsLeftAsItIs() {
    RuntimeException slowDown =
        new RuntimeException(
            "Please reduce your request rate. (Service: S3, Status Code: 503, Request ID: 1) (SDK Attempt Count: 6)");
    RuntimeException retryable =
        FailureClassifier.retryableIfTransient(slowDown, "Cannot commit job job-1");
    assertThat(retryable).isExactlyInstanceOf(TransientException.class).hasCause(slowDown);
    assertThat(retryable)
        .hasMessageStartingWith("Cannot commit job job-1: RuntimeException: Please reduce");

    IllegalArgumentException bug = new IllegalArgumentException("no such column");
    assertThat(FailureClassifier.retryableIfTransient(bug, "Cannot plan")).isSameAs(bug);
    PlanIntegrityException typed =
        new PlanIntegrityException("bad digest", new SocketTimeoutException());
    assertThat(FailureClassifier.retryableIfTransient(typed, "Cannot plan")).isSameAs(typed);
  }
}
