package io.icecompact.worker;

import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rewritten group's result: made from its output, stored next to the plan, answered as a {@link
 * GroupStatus}.
 */
final class GroupResults {
  // the stage's logger, as before this class was split from it: log settings name the stage
  private static final Logger LOG = LoggerFactory.getLogger(GroupRewriter.class);

  private GroupResults() {}

  /**
   * The result of attempt {@code attempt} of group {@code groupIndex}: {@code tasks} rewritten into
   * {@code output}.
   */
  static GroupResult of(
      JobPlan plan,
      int groupIndex,
      int attempt,
      Table table,
      List<FileScanTask> tasks,
      RewriteOutput output,
      long durationMillis) {
    return new GroupResult(
        plan.jobId(),
        groupIndex,
        attempt,
        plan.pinned().snapshotId(),
        table.schema().schemaId(),
        plan.pinned().outputSpecId(),
        tasks.stream().map(task -> task.file().location()).toList(),
        tasks.stream()
            .flatMap(task -> task.deletes().stream())
            .map(ContentFile::location)
            .distinct()
            .toList(),
        output.rowsRead(),
        output.rowsDeleted(),
        output.rowsWritten(),
        output.bytesWritten(),
        output.dataFiles().stream()
            .map(
                file ->
                    JobJson.tree(ContentFileParser.toJson(file, table.specs().get(file.specId()))))
            .toList(),
        output.path(),
        output.pathReason(),
        durationMillis,
        output.spilledBytes());
  }

  /**
   * Stores the group's result. When that fails and the result is surely not stored, the outputs are
   * deleted before the failure is raised: no committer would ever name them, and each retry of the
   * group would leave another set. When the write may have landed (it failed, but reading back
   * finds it or fails too), they are kept: a stored result whose outputs are gone fails the whole
   * job's commit.
   */
  static void storeOrDeleteOutputs(
      JobStore store, WorkLocation work, GroupResult result, RewriteOutput output, FileIO io) {
    try {
      store.writeGroupResult(work, result);
    } catch (RuntimeException e) {
      boolean surelyAbsent;
      try {
        surelyAbsent =
            store
                .readGroupResult(work, result.groupIndex())
                .filter(
                    stored ->
                        stored.jobId().equals(result.jobId())
                            && stored.attempt() == result.attempt())
                .isEmpty();
      } catch (RuntimeException unknown) {
        surelyAbsent = false;
      }
      if (surelyAbsent) {
        for (DataFile file : output.dataFiles()) {
          try {
            io.deleteFile(file.location());
          } catch (RuntimeException ignored) {
            // left for remove-orphans; the failure to store the result is the one to raise
          }
        }
      }
      LOG.warn(
          "[{} worker group {}] attempt {} could not store its result; its {} output files were {}",
          result.jobId(),
          result.groupIndex(),
          result.attempt(),
          output.dataFiles().size(),
          surelyAbsent ? "deleted" : "kept (the result may have been stored)");
      throw e;
    }
  }

  /** The small answer a runner returns for a stored result. */
  static GroupStatus status(GroupResult result, WorkLocation work) {
    return new GroupStatus(
        result.jobId(),
        result.groupIndex(),
        result.attempt(),
        result.inputRows(),
        result.deletedRows(),
        result.outputRows(),
        result.outputFiles().size(),
        result.outputBytes(),
        work.groupResult(result.groupIndex()));
  }
}
