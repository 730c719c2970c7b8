package io.icecompact.planner.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The score reproduces the measured table of docs/fleet.md, row by row: excess files, delete
 * records per data file and snapshots since compaction give the score it printed. The two rows with
 * deletes fix the delete term's scale (divided by 100: {@code mor2}'s 2,000 per file score 20, not
 * 200,000).
 */
class TableHealthScoreTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "stage11.stream, 120, 0, 150, 270",
    "stage10.orders_hourly, 216, 0, 10, 226",
    "stage11.c2, 36, 0, 0, 36",
    "stage11.d2r, 29, 136, 0, 30",
    "stage11.mor2, 0, 2000, 0, 20",
    "stage11.live, 5, 0, 3, 8"
  })
  void seedThreesLab(String table, long excess, double deletesPerFile, int since, long printed) {
    assertThat(Math.round(TableHealth.score(excess, deletesPerFile, since))).isEqualTo(printed);
  }
}
