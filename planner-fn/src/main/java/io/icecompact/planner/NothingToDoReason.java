package io.icecompact.planner;

import io.icecompact.core.options.RewriteOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Says which thresholds nothing met when Iceberg's planner returns no group. The planner only
 * answers "zero groups"; a scheduled job that ends green without a reason tells its operator
 * nothing, so this re-reads the candidate files and names the rule that kept each kind out.
 */
final class NothingToDoReason {
  private final Table table;
  private final Expression filter;
  private final long snapshotId;
  private final Map<String, String> options;

  NothingToDoReason(Table table, Expression filter, long snapshotId, RewriteOptions options) {
    this.table = table;
    this.filter = filter;
    this.snapshotId = snapshotId;
    this.options = options.asMap();
  }

  String explain() {
    long target =
        longOption(
            RewriteOptions.TARGET_FILE_SIZE_BYTES,
            PropertyUtil.propertyAsLong(
                table.properties(),
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT));
    FileSizeRange range = FileSizeRange.of(options, target);
    long min = range.min();
    long max = range.max();
    long minInputFiles = longOption(RewriteOptions.MIN_INPUT_FILES, 5);
    long deleteFileThreshold = longOption(RewriteOptions.DELETE_FILE_THRESHOLD, Integer.MAX_VALUE);
    double deleteRatio =
        Double.parseDouble(options.getOrDefault(RewriteOptions.DELETE_RATIO_THRESHOLD, "0.3"));

    int files = 0;
    int sizeCandidates = 0;
    int deleteCountCandidates = 0;
    int deleteRatioCandidates = 0;
    Map<String, Integer> candidatesPerPartition = new HashMap<>();
    Map<String, Long> candidateBytesPerPartition = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).filter(filter).ignoreResiduals().planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        boolean bySize = !range.contains(task.length());
        if (bySize) {
          sizeCandidates++;
          String partition = task.file().specId() + "/" + task.file().partition();
          candidatesPerPartition.merge(partition, 1, Integer::sum);
          candidateBytesPerPartition.merge(partition, task.length(), Long::sum);
        }
        if (task.deletes().size() >= deleteFileThreshold) {
          deleteCountCandidates++;
        }
        long deleted =
            task.deletes().stream()
                .filter(ContentFileUtil::isFileScoped)
                .mapToLong(ContentFile::recordCount)
                .sum();
        if (!task.deletes().isEmpty()
            && (double) Math.min(deleted, task.file().recordCount()) / task.file().recordCount()
                >= deleteRatio) {
          deleteRatioCandidates++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    if (files == 0) {
      return "No data file matches the filter in snapshot " + snapshotId;
    }
    int most = candidatesPerPartition.values().stream().max(Integer::compare).orElse(0);
    long mostBytes = candidateBytesPerPartition.values().stream().max(Long::compare).orElse(0L);
    return String.format(
        "No file group met a rewrite threshold among %d data files in snapshot %d: "
            + "%d files are outside the size range [%s=%d, %s=%d], at most %d in one partition "
            + "(%s=%d) holding %d bytes (%s=%d); "
            + "%d files have at least %s=%s delete files; "
            + "%d files have at least %s=%s of their rows deleted",
        files,
        snapshotId,
        sizeCandidates,
        RewriteOptions.MIN_FILE_SIZE_BYTES,
        min,
        RewriteOptions.MAX_FILE_SIZE_BYTES,
        max,
        most,
        RewriteOptions.MIN_INPUT_FILES,
        minInputFiles,
        mostBytes,
        RewriteOptions.TARGET_FILE_SIZE_BYTES,
        target,
        deleteCountCandidates,
        RewriteOptions.DELETE_FILE_THRESHOLD,
        deleteFileThreshold == Integer.MAX_VALUE ? "unset" : Long.toString(deleteFileThreshold),
        deleteRatioCandidates,
        RewriteOptions.DELETE_RATIO_THRESHOLD,
        deleteRatio);
  }

  private long longOption(String name, long defaultValue) {
    String value = options.get(name);
    return value == null ? defaultValue : Long.parseLong(value.trim());
  }
}
