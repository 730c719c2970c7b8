package io.icecompact.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the functions read the job log's retention from their environment. */
class LeaseStepsTest {
  @Test
  void theRetentionComesFromTheEnvironmentAsWholeDays() {
    assertThat(LeaseSteps.retention(null)).isEqualTo(JobLog.RETENTION_DEFAULT);
    assertThat(LeaseSteps.retention(" 30 ")).isEqualTo(Duration.ofDays(30));
    for (String bad : List.of("0", "-1", "90d")) {
      assertThatThrownBy(() -> LeaseSteps.retention(bad))
          .hasMessage(
              "Environment variable JOB_LOG_RETENTION_DAYS is set to '"
                  + bad
                  + "' but must be a whole number of days > 0");
    }
  }
}
