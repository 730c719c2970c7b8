package io.icecompact.committer;

import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.IcebergFileJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.text.Abbreviated;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.FileIO;

/**
 * Re-checks every worker result against the plan and the storage before anything is committed. The
 * committer trusts no worker: a result that breaks an invariant fails the whole job, because it
 * means a bug or tampering, not bad luck. Groups whose worker gave up are simply not ready, and so
 * is a group whose stored result cannot be read or parsed: nothing of it can be checked, so it
 * fails alone. Groups are checked one at a time, in plan order, their documents read a few groups
 * ahead ({@link GroupReadAhead}); a ready group keeps its tasks and outputs, not its result's file
 * lists.
 */
final class ResultValidator {
  private final JobPlan plan;
  private final JobStore store;
  private final WorkLocation work;
  private final FileIO io;
  private final Map<Integer, PartitionSpec> specs;

  ResultValidator(
      JobPlan plan,
      JobStore store,
      WorkLocation work,
      FileIO io,
      Map<Integer, PartitionSpec> specs) {
    this.plan = plan;
    this.store = store;
    this.work = work;
    this.io = io;
    this.specs = specs;
  }

  record Validated(Map<Integer, ReadyGroup> ready, Map<Integer, String> failed) {}

  Validated validate() {
    Set<String> seenInputs = new HashSet<>();
    Map<Integer, ReadyGroup> ready = new LinkedHashMap<>();
    Map<Integer, String> failed = new LinkedHashMap<>();
    long totalIn = 0;
    long totalDeleted = 0;
    long totalOut = 0;

    try (GroupReadAhead reads = new GroupReadAhead(plan, store, work, io)) {
      while (reads.hasNext()) {
        GroupReadAhead.Read read = reads.next();
        PlannedGroup group = read.planned();
        if (read.tasksError() != null) {
          // a document that does not match the index, or values Iceberg's parsers reject: nothing
          // of
          // this group can be known, so it fails alone and none of its files is touched
          failed.put(
              group.index(), "its planned files cannot be read: " + read.tasksError().getMessage());
          continue;
        }
        for (FileScanTask task : read.tasks()) {
          if (!seenInputs.add(task.file().location())) {
            throw violation(
                "input file %s is planned in more than one group", task.file().location());
          }
        }
        if (read.resultError() != null) {
          // stored but unparseable: this group's outputs cannot be known, the other groups' can
          failed.put(
              group.index(),
              "its stored result cannot be read: " + read.resultError().getMessage());
          continue;
        }
        if (read.result().isEmpty()) {
          GroupFailure failure = store.readGroupFailure(work, group.index()).orElse(null);
          failed.put(
              group.index(),
              failure == null
                  ? "no result was stored: the worker did not finish"
                  : failure.errorType() + ": " + failure.message());
          continue;
        }
        ReadyGroup checked;
        try {
          checked = check(group, read.tasks(), read.result().get(), read.outputLengths());
        } catch (UnreadableOutputException e) {
          failed.put(group.index(), "its result's output files cannot be read: " + e.getMessage());
          continue;
        }
        ready.put(group.index(), checked);
        totalIn += checked.result().inputRows();
        totalDeleted += checked.result().deletedRows();
        totalOut += checked.result().outputRows();
      }
    }
    if (totalOut != totalIn - totalDeleted) {
      throw violation(
          "rows out %d != rows in %d - rows deleted %d across the job",
          totalOut, totalIn, totalDeleted);
    }
    return new Validated(ready, failed);
  }

  private ReadyGroup check(
      PlannedGroup group,
      List<FileScanTask> tasks,
      GroupResult result,
      Map<String, Long> outputLengths) {
    int index = group.index();
    if (!plan.jobId().equals(result.jobId())) {
      throw violation("group %d's result belongs to job %s", index, result.jobId());
    }
    if (result.pinnedSnapshotId() != plan.pinned().snapshotId()) {
      throw violation(
          "group %d was rewritten from snapshot %d, not the pinned %d",
          index, result.pinnedSnapshotId(), plan.pinned().snapshotId());
    }
    if (result.schemaId() != plan.pinned().schemaId()
        || result.outputSpecId() != plan.pinned().outputSpecId()) {
      throw violation(
          "group %d used schema %d / spec %d, the plan pinned schema %d / spec %d",
          index,
          result.schemaId(),
          result.outputSpecId(),
          plan.pinned().schemaId(),
          plan.pinned().outputSpecId());
    }
    Set<String> planned = new TreeSet<>();
    tasks.forEach(task -> planned.add(task.file().location()));
    Set<String> reported = new TreeSet<>(result.inputFiles());
    if (result.inputFiles().size() != reported.size()) {
      throw violation("group %d's result names an input file twice", index);
    }
    if (!planned.equals(reported)) {
      Set<String> outside = new TreeSet<>(reported);
      outside.removeAll(planned);
      Set<String> missing = new TreeSet<>(planned);
      missing.removeAll(reported);
      throw violation(
          "group %d's result does not match its plan: files outside the plan %s, planned files missing %s",
          index, Abbreviated.list(outside), Abbreviated.list(missing));
    }
    long plannedRows = tasks.stream().mapToLong(task -> task.file().recordCount()).sum();
    if (result.inputRows() != plannedRows) {
      throw violation(
          "group %d read %d rows but its input files hold %d",
          index, result.inputRows(), plannedRows);
    }
    if (result.deletedRows() < 0
        || result.outputRows() != result.inputRows() - result.deletedRows()) {
      throw violation(
          "group %d wrote %d rows, expected rows in %d - rows deleted %d",
          index, result.outputRows(), result.inputRows(), result.deletedRows());
    }

    List<DataFile> outputs = new ArrayList<>();
    long outputRows = 0;
    for (var node : result.outputFiles()) {
      DataFile file;
      try {
        file = (DataFile) IcebergFileJson.contentFile(node, specs);
      } catch (RuntimeException e) {
        throw new UnreadableOutputException(e.toString());
      }
      if (file.specId() != plan.pinned().outputSpecId()) {
        throw violation("group %d wrote %s with spec %d", index, file.location(), file.specId());
      }
      if (!file.location().contains(plan.jobId())) {
        throw violation("group %d's output %s is not named for this job", index, file.location());
      }
      Long length =
          outputLengths.containsKey(file.location())
              ? outputLengths.get(file.location())
              : GroupReadAhead.storedLength(io, file.location());
      if (length == null) {
        throw violation(
            "group %d's output %s is missing (no object at that location)", index, file.location());
      }
      if (length != file.fileSizeInBytes()) {
        throw violation(
            "group %d's output %s has %d bytes but its result records %d",
            index, file.location(), length, file.fileSizeInBytes());
      }
      outputRows += file.recordCount();
      outputs.add(file);
    }
    if (outputRows != result.outputRows()) {
      throw violation(
          "group %d's output files hold %d rows but its result reports %d",
          index, outputRows, result.outputRows());
    }
    // the file lists are checked: let them go (a job may hold thousands of groups until it commits)
    return new ReadyGroup(group, tasks, result.withoutFileLists(), outputs);
  }

  /** An output file of a result that Iceberg's parser rejects: that group fails, not the job. */
  private static final class UnreadableOutputException extends RuntimeException {
    UnreadableOutputException(String message) {
      super(message);
    }
  }

  private JobInvariantViolationException violation(String format, Object... args) {
    return new JobInvariantViolationException(
        "Job " + plan.jobId() + " not committed: " + String.format(format, args));
  }
}
