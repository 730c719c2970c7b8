package io.icecompact.planner.fleet;

import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.policy.EqualityDeletesAction;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.core.text.ByteSize;
import io.icecompact.planner.FileSizeRange;
import io.icecompact.planner.RewritePlanner;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.FileScanTask;

/**
 * Whether a plan keeps the v2 default {@code delete-file-threshold=1} (docs/fleet.md, the decision
 * tree's step 8). The default is there for small data files that carry delete files: a v2 reader
 * pays about five requests per such file and only rewriting the file removes them (the study's
 * measured fix). It also makes every data file at its target size that carries one small delete
 * file a candidate, and rewriting such a file drops a few rows at the price of every byte: the
 * rewrite a conversion of equality deletes exists to avoid, which would undo the conversion at the
 * next sweep. So where the files at target hold most of the bytes the plan would rewrite, the
 * default is left out: small files are still picked by their size, a file at target whose rows are
 * mostly deleted still by Iceberg's {@code delete-ratio-threshold} (0.3), and equality deletes left
 * on the files at target are converted by a later sweep (step 3).
 *
 * @param plannedFiles data files the plan with the default would rewrite
 * @param plannedBytes their bytes
 * @param atTargetFiles those within the planner's size range (picked for their deletes only)
 * @param atTargetBytes their bytes
 */
public record V2DeleteThreshold(
    long plannedFiles, long plannedBytes, long atTargetFiles, long atTargetBytes) {

  /**
   * True when {@code policy} holds the v2 default, not a value the table set, and the table leaves
   * the choice for equality deletes to the tree ({@code rewrite} asks for every file they touch).
   */
  static boolean isDefault(Map<String, String> properties, TablePolicy policy) {
    String name = RewriteOptions.DELETE_FILE_THRESHOLD;
    return Integer.toString(TablePolicy.DELETE_FILE_THRESHOLD_V2).equals(policy.options().get(name))
        && !properties.containsKey(TablePolicy.OPTION_PREFIX + name)
        && policy.equalityDeletes() == EqualityDeletesAction.AUTO;
  }

  /** The files of {@code planned} and those of them within the planner's size range. */
  static V2DeleteThreshold of(RewritePlanner.PlannedJob planned, TablePolicy policy, long target) {
    FileSizeRange range = FileSizeRange.of(policy.options(), target);
    long files = 0;
    long bytes = 0;
    long atTargetFiles = 0;
    long atTargetBytes = 0;
    for (int group = 0; group < planned.plan().groups().size(); group++) {
      for (FileScanTask task : planned.tasks(group)) {
        files++;
        bytes += task.length();
        if (range.contains(task.length())) {
          atTargetFiles++;
          atTargetBytes += task.length();
        }
      }
    }
    return new V2DeleteThreshold(files, bytes, atTargetFiles, atTargetBytes);
  }

  /** Whether the default is left out: the files at target hold more than half the bytes. */
  boolean leaveOut() {
    return atTargetBytes * 2 > plannedBytes;
  }

  /** Why it was left out, for the decision's reason. */
  String reason() {
    return String.format(
        Locale.ROOT,
        "%s=%d left out: %d of the %d data files it would rewrite (%s of %s) are at their target"
            + " size and picked only for their delete files; they keep them (%s still picks one"
            + " whose rows are mostly deleted)",
        RewriteOptions.DELETE_FILE_THRESHOLD,
        TablePolicy.DELETE_FILE_THRESHOLD_V2,
        atTargetFiles,
        plannedFiles,
        ByteSize.readable(atTargetBytes),
        ByteSize.readable(plannedBytes),
        RewriteOptions.DELETE_RATIO_THRESHOLD);
  }
}
