package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.job.PlannedGroup;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SpillLimitTest {
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  private static PlannedGroup group(long inputBytes, long inputRows) {
    return new PlannedGroup(
        3, "(unpartitioned)", 10, inputBytes, inputRows, 0, 1L << 29, "generic", "sorted", null);
  }

  @Test
  void aLambdaWorkerWith10GbOfTmpSortsGroupsOfAbout5Gb() {
    long tmp = 10_240 * MIB;
    assertThat(SpillLimit.forDisk(tmp)).isEqualTo((tmp - 256 * MIB) / 2);
    assertThatCode(() -> SpillLimit.check(group(4 * GIB, 1), Path.of("/tmp"), tmp))
        .doesNotThrowAnyException();
  }

  @Test
  void runsHoldWhatTheHeapSortsInMemoryCountedInRows() {
    // an 8 GiB heap sorts 1/40 of it in memory: 214,748,364 bytes of Parquet, at 100 bytes a row
    assertThat(SpillLimit.runRows(group(2 * GIB, 2 * GIB / 100), 8 * GIB)).isEqualTo(2_147_483);
    assertThat(SpillLimit.runRows(group(2 * GIB, 1), 4000)).as("at least a row a run").isEqualTo(1);
  }

  @Test
  void aGroupWhoseRunsWouldNotFitIsRefusedNamingTheSizes() {
    assertThatThrownBy(() -> SpillLimit.check(group(2 * GIB, 1), Path.of("/tmp"), 2 * GIB))
        .isInstanceOf(GroupRewriteException.class)
        .hasMessage(
            "Group 3 holds 2,147,483,648 bytes of Parquet, too many to sort beyond memory in /tmp: its"
                + " sorted runs take about 4,294,967,296 bytes (2 times its Parquet size) and 2,147,483,648 bytes are"
                + " free, 268,435,456 of them kept for the output's upload buffers: set max-file-group-size-bytes to"
                + " at most 939524096, or give the worker more ephemeral storage")
        .satisfies(e -> assertThat(((GroupRewriteException) e).retryable()).isFalse());
  }
}
