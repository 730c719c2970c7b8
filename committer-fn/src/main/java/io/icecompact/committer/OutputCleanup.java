package io.icecompact.committer;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes output files of the job that no snapshot made live. A file that any snapshot carrying the
 * job's stamp added is table data, whatever the committer believed about its group: it is kept and
 * reported. Only files named for the job are ever deleted.
 */
final class OutputCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(OutputCleanup.class);

  private final FileIO io;
  private final JobPlan plan;

  OutputCleanup(FileIO io, JobPlan plan) {
    this.io = io;
    this.plan = plan;
  }

  /**
   * Deletes the outputs of {@code groups} (group index to output locations); returns problems for
   * outputs that a snapshot of the job holds and were kept, and for outputs that could not be deleted
   * (so that the result lists every file of the job that is neither committed nor deleted).
   */
  List<String> delete(Table table, Map<Integer, List<String>> groups) {
    List<String> problems = new ArrayList<>();
    if (groups.values().stream().allMatch(List::isEmpty)) {
      return problems;
    }
    table.refresh();
    Set<String> liveByThisJob = addedByThisJob(table);
    groups.forEach(
        (index, outputs) -> {
          for (String location : outputs) {
            if (liveByThisJob.contains(location)) {
              problems.add(String.format(
                  "group %d was not committed by this run, but its output %s is in one of the job's"
                      + " snapshots; it was kept", index, location));
            } else if (location.contains(plan.jobId())) {
              deleteQuietly(location).ifPresent(error -> problems.add(String.format(
                  "group %d was not committed and its output %s could not be deleted (%s); no snapshot"
                      + " holds it: remove-orphans deletes it", index, location, error)));
            }
          }
        });
    return problems;
  }

  /**
   * For a job stopped before it committed anything: deletes every output that a stored group result
   * names. Does nothing when any snapshot of the table carries the job's stamp (a re-run decides).
   */
  void deleteAllStored(Table table, JobStore store, WorkLocation work) {
    table.refresh();
    if (anySnapshotOfThisJob(table)) {
      LOG.warn("[{} {} committer] stopped, but a snapshot carries the job's stamp: outputs kept",
          plan.table(), plan.jobId());
      return;
    }
    int deleted = 0;
    for (PlannedGroup group : plan.groups()) {
      for (String location : storedOutputs(store, work, group.index())) {
        if (location.contains(plan.jobId())) {
          deleteQuietly(location);
          deleted++;
        }
      }
    }
    LOG.info("[{} {} committer] stopped before any commit: {} output files deleted",
        plan.table(), plan.jobId(), deleted);
  }

  /** Output locations a group's stored result names, read without Iceberg's parsers. */
  static List<String> storedOutputs(JobStore store, WorkLocation work, int groupIndex) {
    List<String> locations = new ArrayList<>();
    Optional<GroupResult> result;
    try {
      result = store.readGroupResult(work, groupIndex);
    } catch (PlanIntegrityException e) {
      // an unparseable result names no outputs: they stay as orphan files, referenced by no snapshot
      LOG.warn("group {}: its stored result cannot be read, its outputs are not deleted: {}",
          groupIndex, e.getMessage());
      return locations;
    }
    result
        .map(GroupResult::outputFiles)
        .ifPresent(files -> {
          for (JsonNode file : files) {
            JsonNode path = file.get("file-path");
            if (path != null && path.isTextual()) {
              locations.add(path.textValue());
            }
          }
        });
    return locations;
  }

  private boolean anySnapshotOfThisJob(Table table) {
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.summary() != null && plan.jobId().equals(snapshot.summary().get(SnapshotStamp.JOB_ID))) {
        return true;
      }
    }
    return false;
  }

  /** Data files added by any snapshot stamped with the job, current history or not. */
  private Set<String> addedByThisJob(Table table) {
    Set<String> added = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.summary() != null && plan.jobId().equals(snapshot.summary().get(SnapshotStamp.JOB_ID))) {
        SnapshotChanges.builderFor(table).snapshot(snapshot).build().addedDataFiles()
            .forEach(file -> added.add(file.location()));
      }
    }
    return added;
  }

  /** Deletes {@code location}; returns why it could not, if it could not. */
  private Optional<String> deleteQuietly(String location) {
    try {
      io.deleteFile(location);
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete uncommitted output {}: {}", location, e.toString());
      return Optional.of(FailureClassifier.describe(e));
    }
  }
}
