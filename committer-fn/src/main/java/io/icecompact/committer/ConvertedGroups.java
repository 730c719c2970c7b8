package io.icecompact.committer;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.error.StoredDocumentUnreadableException;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.IcebergFileJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PlannedGroup;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Reads every group's stored conversion and checks it against the plan: a group without one is
 * {@code FAILED} (with its worker's recorded failure, if any); one that disagrees with its planned
 * data files fails the whole job before any commit, as a rewrite's broken invariant does. Keeps
 * only the results and the groups' equality delete files, not their scan tasks.
 */
final class ConvertedGroups {
  private ConvertedGroups() {}

  /**
   * @param outputsMustExist false when an earlier run of the committer already committed: its
   *     cleanup deleted the outputs of the files and groups it left out
   */
  static void read(ConversionRun run, boolean outputsMustExist) {
    for (PlannedGroup group : run.plan.groups()) {
      Optional<ConvertedGroup> result;
      try {
        result =
            run.store.readDocument(run.work.convertedGroup(group.index()), ConvertedGroup.class);
      } catch (StoredDocumentUnreadableException e) {
        // as a rewrite's unreadable result: the group failed, the others go on
        run.end(group, Status.FAILED, "its stored result cannot be read: " + e.getMessage());
        continue;
      }
      if (result.isEmpty()) {
        run.end(group, Status.FAILED, failure(run, group));
        continue;
      }
      List<FileScanTask> tasks = run.store.readGroupTasks(run.work, run.plan, group.index());
      check(run.plan, group, result.get(), tasks, run.table, outputsMustExist);
      for (FileScanTask task : tasks) {
        task.deletes().stream()
            .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
            .forEach(delete -> run.equalityDeletes.putIfAbsent(delete.location(), delete));
      }
      run.ready.put(group.index(), new ConversionRun.Ready(group, result.get()));
    }
    if (!run.options.allowPartial() && run.ready.size() < run.plan.groups().size()) {
      run.endAll(Status.NOT_COMMITTED, "not committed: allow-partial=false and a group failed");
    }
  }

  /**
   * A stored result converts exactly the group's planned data files, each once, at the pinned
   * snapshot; each delete file it wrote exists and names its data file.
   */
  private static void check(
      JobPlan plan,
      PlannedGroup group,
      ConvertedGroup result,
      List<FileScanTask> tasks,
      Table table,
      boolean outputsMustExist) {
    Set<String> planned = new HashSet<>();
    tasks.forEach(task -> planned.add(task.file().location()));
    Set<String> converted = new HashSet<>();
    Set<String> seen = new HashSet<>();
    String problem = null;
    if (!plan.jobId().equals(result.jobId())
        || result.pinnedSnapshotId() != plan.pinned().snapshotId()) {
      problem =
          String.format(
              "its result was made by job %s at snapshot %d",
              result.jobId(), result.pinnedSnapshotId());
    }
    for (ConvertedGroup.File file : result.files()) {
      if (!converted.add(file.dataFile())) {
        problem = "data file " + file.dataFile() + " is converted twice";
      }
      if (file.positionDeletes() != null) {
        DeleteFile written = deleteFile(file.positionDeletes(), table);
        if (!file.dataFile().equals(ContentFileUtil.referencedDataFileLocation(written))) {
          problem =
              "its delete file "
                  + written.location()
                  + " does not name data file "
                  + file.dataFile();
        } else if (outputsMustExist
            && !seen.contains(written.location())
            && !table.io().newInputFile(written.location()).exists()) {
          problem = "its delete file " + written.location() + " does not exist";
        }
        seen.add(written.location()); // v3: a group's deletion vectors share one Puffin file
      }
    }
    if (problem == null && !converted.equals(planned)) {
      problem =
          String.format(
              "it converted %d data files, its plan has %d (%d in common)",
              converted.size(),
              planned.size(),
              converted.stream().filter(planned::contains).count());
    }
    if (problem != null) {
      throw new JobInvariantViolationException(
          String.format(
              "Job %s not committed: group %d's result is wrong: %s",
              plan.jobId(), group.index(), problem));
    }
  }

  private static String failure(ConversionRun run, PlannedGroup group) {
    return run.store
        .readGroupFailure(run.work, group.index())
        // named as a rewrite's failed group is: the error type, then its message
        .map(failure -> failure.errorType() + ": " + failure.message())
        .orElse("no result was stored for it (its worker did not finish)");
  }

  static DeleteFile deleteFile(JsonNode node, Table table) {
    return (DeleteFile) IcebergFileJson.contentFile(node, table.specs());
  }

  static String location(JsonNode node) {
    return node.get("file-path").textValue();
  }
}
