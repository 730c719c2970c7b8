package io.icecompact.planner.fleet;

import io.icecompact.core.job.JobAction;
import io.icecompact.core.policy.EqualityDeletesAction;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.core.text.ByteSize;
import java.util.Locale;

/**
 * The decision tree's step for a table with live equality deletes (docs/fleet.md): convert them
 * where the data files they apply to are already near their target size, rewrite those files where
 * they are small, unless {@code icecompact.equality-deletes.action} says which.
 *
 * <p>Why the size decides: a rewrite of small files is compaction the table needs anyway, and it
 * applies the deletes on the way; a rewrite of files already at their target size rewrites every
 * byte to drop a few rows, where a conversion reads only the key columns and writes one small
 * position delete file or deletion vector per data file.
 *
 * @param action the job for the equality deletes
 * @param reason why, with the figures it was decided on
 * @param figures those figures alone (the deletes, the data files they apply to, their size)
 */
public record EqualityDeleteChoice(JobAction action, String reason, String figures) {
  /** Data files whose mean size is at least this fraction of the target count as at target. */
  public static final double AT_TARGET = 0.75;

  /** The choice for {@code costs} under the table's {@code setting}. */
  public static EqualityDeleteChoice of(EqualityDeletesAction setting, EqualityDeleteCosts costs) {
    String figures =
        String.format(
            Locale.ROOT,
            "%d equality delete files (%d keys) apply to %d data files of %s on average, %s of the"
                + " %s target",
            costs.equalityDeleteFiles(),
            costs.equalityKeys(),
            costs.dataFiles(),
            ByteSize.readable(costs.meanDataFileBytes()),
            percent(costs.meanOfTarget()),
            ByteSize.readable(costs.targetFileSizeBytes()));
    return switch (setting) {
      case CONVERT ->
          new EqualityDeleteChoice(
              JobAction.CONVERT_EQUALITY_DELETES,
              figures + "; " + TablePolicy.EQUALITY_DELETES_ACTION + " is convert",
              figures);
      case REWRITE ->
          new EqualityDeleteChoice(
              JobAction.REWRITE_DATA_FILES,
              figures + "; " + TablePolicy.EQUALITY_DELETES_ACTION + " is rewrite",
              figures);
      case AUTO ->
          costs.meanOfTarget() >= AT_TARGET
              ? new EqualityDeleteChoice(
                  JobAction.CONVERT_EQUALITY_DELETES,
                  String.format(
                      Locale.ROOT,
                      "%s (at least %.0f%%: converted, reading about %s of key columns and delete"
                          + " files instead of rewriting %s)",
                      figures,
                      AT_TARGET * 100,
                      ByteSize.readable(costs.convert().bytesRead()),
                      ByteSize.readable(costs.rewrite().bytesRead())),
                  figures)
              : new EqualityDeleteChoice(
                  JobAction.REWRITE_DATA_FILES,
                  String.format(
                      Locale.ROOT,
                      "%s (under %.0f%%: rewritten with their deletes applied, as compaction)",
                      figures,
                      AT_TARGET * 100),
                  figures);
    };
  }

  /** A fraction as a whole percentage; "<1%" rather than a misleading "0%". */
  public static String percent(double fraction) {
    double percent = fraction * 100;
    return percent > 0 && percent < 1 ? "<1%" : String.format(Locale.ROOT, "%.0f%%", percent);
  }
}
