package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.job.PlannedGroup;
import org.junit.jupiter.api.Test;

class InMemorySortLimitTest {
  private static final long GIB = 1L << 30;

  private static PlannedGroup group(long inputBytes) {
    return new PlannedGroup(3, "(unpartitioned)", 10, inputBytes, 1000, 0, 1L << 29, "generic", "sorted", null);
  }

  @Test
  void aLambdaWorkerOf8GbSortsGroupsOfAbout200Mb() {
    assertThat(InMemorySortLimit.forHeap(8 * GIB)).isEqualTo(8 * GIB / 40);
    assertThatCode(() -> InMemorySortLimit.check(group(8 * GIB / 40), 8 * GIB)).doesNotThrowAnyException();
  }

  @Test
  void aLargerGroupIsRefusedNamingTheOptionToLower() {
    assertThatThrownBy(() -> InMemorySortLimit.check(group(2 * GIB), GIB))
        .isInstanceOf(GroupRewriteException.class)
        .hasMessage("Group 3 holds 2,147,483,648 bytes of Parquet, more than the 26,843,545 bytes a worker"
            + " with a 1,073,741,824-byte heap sorts in memory (rows take about 20 times their Parquet size):"
            + " set max-file-group-size-bytes to at most 26843545, or give the worker more memory")
        .satisfies(e -> assertThat(((GroupRewriteException) e).retryable()).isFalse());
  }
}
