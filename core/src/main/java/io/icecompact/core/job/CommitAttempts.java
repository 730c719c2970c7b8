package io.icecompact.core.job;

import java.util.Arrays;
import java.util.List;

/**
 * How the job's commits went against the table's other writers: how many attempts, how many lost
 * the compare-and-swap, what an attempt cost, and how many commits the table received while the job
 * tried.
 *
 * @param prepareMillis what the commits took before their first attempt, outside the race: reading
 *     and filtering the table's manifests, writing the new ones, validating from the pinned
 *     snapshot
 * @param lostMedianMillis the median lost attempt, from reading the metadata to losing the swap:
 *     what the table's other writers must leave a gap of for the job to win (0 when none was lost)
 * @param each every attempt, in order; null (omitted) in a summary
 */
public record CommitAttempts(
    int attempts,
    int lost,
    int tableCommitsMeanwhile,
    long prepareMillis,
    long medianMillis,
    long maxMillis,
    long lostMedianMillis,
    List<CommitAttempt> each) {

  public static CommitAttempts of(List<CommitAttempt> attempts, long prepareMillis) {
    return new CommitAttempts(
        attempts.size(),
        (int) attempts.stream().filter(a -> a.outcome() == CommitAttempt.Outcome.LOST).count(),
        attempts.stream().mapToInt(CommitAttempt::tableCommitsMeanwhile).sum(),
        prepareMillis,
        median(attempts.stream().mapToLong(CommitAttempt::totalMillis).toArray()),
        attempts.stream().mapToLong(CommitAttempt::totalMillis).max().orElse(0),
        median(
            attempts.stream()
                .filter(a -> a.outcome() == CommitAttempt.Outcome.LOST)
                .mapToLong(CommitAttempt::totalMillis)
                .toArray()),
        List.copyOf(attempts));
  }

  /** The same figures without the attempt list. */
  public CommitAttempts summary() {
    return new CommitAttempts(
        attempts,
        lost,
        tableCommitsMeanwhile,
        prepareMillis,
        medianMillis,
        maxMillis,
        lostMedianMillis,
        null);
  }

  /**
   * One line for logs and the CLI: attempts, losses, what the table received meanwhile, the costs.
   */
  public static String line(CommitAttempts commit) {
    if (commit == null) {
      return "no commit attempt";
    }
    if (commit.lost == 0) {
      return String.format(
          "prepared in %d ms, then %d attempt(s) of %d ms, none lost to another writer",
          commit.prepareMillis, commit.attempts, commit.maxMillis);
    }
    return String.format(
        "prepared in %d ms, then %d attempts, %d lost to %d commit(s) of other writers; a lost"
            + " attempt took %d ms (median), the longest attempt %d ms",
        commit.prepareMillis,
        commit.attempts,
        commit.lost,
        commit.tableCommitsMeanwhile,
        commit.lostMedianMillis,
        commit.maxMillis);
  }

  private static long median(long[] values) {
    if (values.length == 0) {
      return 0;
    }
    Arrays.sort(values);
    return values[values.length / 2];
  }
}
