package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.planner.fleet.Decision;
import io.icecompact.planner.fleet.TableAssessment;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job the sweep on one machine starts is the one the decision asked for. */
class EmbeddedSweepJobSpecTest {
  private static final Map<String, String> CATALOG = Map.of("type", "hadoop", "warehouse", "/wh");

  private static TableAssessment decided(Decision decision) {
    TablePolicy policy =
        new TablePolicy(
            true,
            Duration.ZERO,
            "day >= '2026-12-01'",
            Map.of("partial-progress.enabled", "true", "allow-partial", "false"),
            TablePolicy.DEFAULT_STEPS);
    return new TableAssessment("cdc.orders", null, policy, decision, "because", null);
  }

  @Test
  void aConversionDecisionStartsAConversionWithThePolicysWhereAndTheOptionsItTakes() {
    JobSpec spec = EmbeddedSweep.jobSpec(CATALOG, decided(Decision.CONVERT_EQUALITY_DELETES));

    assertThat(spec.jobAction()).isEqualTo(JobAction.CONVERT_EQUALITY_DELETES);
    assertThat(spec.table()).isEqualTo("cdc.orders");
    assertThat(spec.where()).isEqualTo("day >= '2026-12-01'");
    // a rewrite option of the policy does not apply to a conversion, which would refuse it
    assertThat(spec.options()).isEqualTo(Map.of("allow-partial", "false"));
    assertThat(spec.catalogProperties()).isEqualTo(CATALOG);
  }

  @Test
  void aCompactionDecisionStartsARewriteAsBefore() {
    JobSpec spec = EmbeddedSweep.jobSpec(CATALOG, decided(Decision.COMPACT));

    assertThat(spec.options()).containsEntry("partial-progress.enabled", "true");
    assertThat(spec.action()).isNull(); // the default, as every job before actions existed
    assertThat(spec.jobAction()).isEqualTo(JobAction.REWRITE_DATA_FILES);
  }
}
