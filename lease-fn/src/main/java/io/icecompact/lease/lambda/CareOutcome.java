package io.icecompact.lease.lambda;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.icecompact.core.text.Abbreviated;
import java.util.ArrayList;
import java.util.List;

/**
 * What the execution's care steps did, as the state machine leaves it in {@code $.result.care}:
 * {@code CareForTable}'s output (one line per step), or the {@code CareFailed} state's when the
 * care function failed as a whole (every listed step counted as failed, the error's name). Read by
 * {@code ReleaseLease}, which counts refused and failed steps in the job's metrics and job log: a
 * job can commit while its expiry or orphan removal refuses on every run, and the job's status
 * alone would look green.
 *
 * @param failed steps that failed, refused or did not run
 * @param steps one line per step that ran (empty when the function failed as a whole)
 * @param error the error's name when the function failed as a whole, else null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CareOutcome(int failed, List<Step> steps, String error) {
  /**
   * A step's line: its name, {@code DONE}, {@code FAILED}, {@code REFUSED} or {@code PREVIEWED}.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Step(String step, String status, String summary) {}

  /** A reason kept in the job log stays a line, not a report. */
  static final int REASON_CHARS = 600;

  public CareOutcome {
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /**
   * Steps that refused before deleting anything (a possible sharer unreadable, gc.enabled=false).
   */
  public int refused() {
    return (int) steps.stream().filter(s -> "REFUSED".equals(s.status())).count();
  }

  /** Steps that failed or did not run: all listed ones when the function failed as a whole. */
  public int failedSteps() {
    return Math.max(0, failed - refused());
  }

  public boolean allDone() {
    return failed == 0 && error == null;
  }

  /**
   * Each step that refused or failed with its summary, e.g. {@code remove-orphans REFUSED: Refusing
   * ...}; null when every step was done.
   */
  public String reason() {
    if (allDone()) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    if (error != null) {
      parts.add("the care function failed (" + error + "): " + failed + " step(s) did not run");
    }
    steps.stream()
        .filter(s -> !"DONE".equals(s.status()) && !"PREVIEWED".equals(s.status()))
        .forEach(s -> parts.add(s.step() + " " + s.status() + ": " + s.summary()));
    return Abbreviated.text(String.join("; ", parts), REASON_CHARS);
  }
}
