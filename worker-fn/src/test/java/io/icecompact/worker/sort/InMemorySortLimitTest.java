package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.PlannedGroup;
import org.junit.jupiter.api.Test;

class InMemorySortLimitTest {
  private static final long GIB = 1L << 30;

  private static PlannedGroup group(long inputBytes) {
    return new PlannedGroup(
        3, "(unpartitioned)", 10, inputBytes, 1000, 0, 1L << 29, "generic", "sorted", null);
  }

  @Test
  void aLambdaWorkerOf8GbSortsGroupsOfAbout200MbInMemory() {
    assertThat(InMemorySortLimit.forHeap(8 * GIB)).isEqualTo(8 * GIB / 40);
    assertThat(InMemorySortLimit.fits(group(8 * GIB / 40), 8 * GIB)).isTrue();
  }

  @Test
  void aLargerGroupDoesNotFitAndIsSortedInSpilledRuns() {
    assertThat(InMemorySortLimit.fits(group(2 * GIB), GIB)).isFalse();
  }
}
