package io.icecompact.planner.fleet;

import io.icecompact.core.policy.TablePolicy;

/**
 * One table of a sweep: its health, its policy, the decision and why.
 *
 * @param table the table's identifier
 * @param health the health numbers and score of docs/fleet.md (null when the table could not be
 *     read)
 * @param policy the policy from the table's properties (null when a property is invalid)
 * @param decision what a sweep does with it
 * @param reason why, in words an operator can act on
 * @param prediction what the job would do ({@link Decision#COMPACT} only)
 * @param equalityDeletes what rewriting or converting the table's live equality deletes would cost
 *     and save (null when none applies to a data file, or the table was not looked at so far)
 */
public record TableAssessment(
    String table,
    TableHealth health,
    TablePolicy policy,
    Decision decision,
    String reason,
    CompactionPrediction prediction,
    EqualityDeleteCosts equalityDeletes) {

  /** An assessment without equality-delete estimates. */
  public TableAssessment(
      String table,
      TableHealth health,
      TablePolicy policy,
      Decision decision,
      String reason,
      CompactionPrediction prediction) {
    this(table, health, policy, decision, reason, prediction, null);
  }

  /** The score, 0 for a table without health. */
  public double score() {
    return health == null ? 0 : health.score();
  }
}
