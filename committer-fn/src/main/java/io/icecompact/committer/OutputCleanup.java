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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /** An output entry's group and attempt ({@code WorkLocation#outputEntry}). */
  private static final Pattern ENTRY = Pattern.compile("/group-(\\d+)\\.attempt-(\\d+)/[^/]+$");

  private final FileIO io;
  private final JobPlan plan;

  OutputCleanup(FileIO io, JobPlan plan) {
    this.io = io;
    this.plan = plan;
  }

  /**
   * Deletes the outputs of {@code groups} (group index to output locations); returns problems for
   * outputs that a snapshot of the job holds and were kept, and for outputs that could not be
   * deleted (so that the result lists every file of the job that is neither committed nor deleted).
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
              problems.add(
                  String.format(
                      "group %d was not committed by this run, but its output %s is in one of the job's"
                          + " snapshots; it was kept",
                      index, location));
            } else if (location.contains(plan.jobId())) {
              deleteQuietly(location)
                  .ifPresent(
                      error ->
                          problems.add(
                              String.format(
                                  "group %d was not committed and its output %s could not be deleted (%s); no snapshot"
                                      + " holds it: remove-orphans deletes it",
                                  index, location, error)));
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
      LOG.warn(
          "[{} {} committer] stopped, but a snapshot carries the job's stamp: outputs kept",
          plan.table(),
          plan.jobId());
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
    LOG.info(
        "[{} {} committer] stopped before any commit: {} output files deleted",
        plan.table(),
        plan.jobId(),
        deleted);
  }

  /**
   * Deletes what attempts that never reported wrote: each output a worker recorded before creating
   * it ({@code JobStore#recordOutput}) whose attempt is not the one its group's stored result
   * names. Such an attempt was killed (Lambda's timeout, a crash) or superseded by a retry: no
   * commit can hold its files, whatever the table's history, since the committer commits only what
   * a stored result names. A group whose stored result cannot be read is left alone. Returns how
   * many files were deleted.
   *
   * @param reportedAttempts the attempt each group's stored result names, where the caller knows
   *     it; the others are read from the work location
   */
  int deleteUnreported(JobStore store, WorkLocation work, Map<Integer, Integer> reportedAttempts) {
    Map<Integer, Optional<Integer>> reported = new HashMap<>();
    reportedAttempts.forEach((group, attempt) -> reported.put(group, Optional.of(attempt)));
    int deleted = 0;
    for (String entry : store.outputEntries(work)) {
      Matcher name = ENTRY.matcher(entry);
      if (!name.find()) {
        continue;
      }
      int group = Integer.parseInt(name.group(1));
      int attempt = Integer.parseInt(name.group(2));
      Optional<Integer> reportedAttempt =
          reported.computeIfAbsent(group, g -> storedAttempt(store, work, g));
      if (reportedAttempt == null || reportedAttempt.equals(Optional.of(attempt))) {
        continue; // unreadable result, or the reported attempt: its outputs are decided by the
        // commit
      }
      Optional<String> location = store.outputOfEntry(entry);
      if (location.isPresent() && location.get().contains(plan.jobId())) {
        deleteQuietly(location.get());
        deleted++;
      }
    }
    if (deleted > 0) {
      LOG.info(
          "[{} {} committer] {} output files of attempts that never reported (killed or retried) deleted",
          plan.table(),
          plan.jobId(),
          deleted);
    }
    return deleted;
  }

  /**
   * The attempt a group's stored result names; empty without a result, null when it cannot be read.
   */
  private static Optional<Integer> storedAttempt(
      JobStore store, WorkLocation work, int groupIndex) {
    try {
      return store.readGroupResult(work, groupIndex).map(GroupResult::attempt);
    } catch (PlanIntegrityException e) {
      return null;
    }
  }

  /** Output locations a group's stored result names, read without Iceberg's parsers. */
  static List<String> storedOutputs(JobStore store, WorkLocation work, int groupIndex) {
    List<String> locations = new ArrayList<>();
    Optional<GroupResult> result;
    try {
      result = store.readGroupResult(work, groupIndex);
    } catch (PlanIntegrityException e) {
      // an unparseable result names no outputs: they stay as orphan files, referenced by no
      // snapshot
      LOG.warn(
          "group {}: its stored result cannot be read, its outputs are not deleted: {}",
          groupIndex,
          e.getMessage());
      return locations;
    }
    result
        .map(GroupResult::outputFiles)
        .ifPresent(
            files -> {
              for (JsonNode file : files) {
                JsonNode path = file.get("file-path");
                if (path != null && path.isTextual()) {
                  locations.add(path.textValue());
                }
              }
            });
    return locations;
  }

  boolean anySnapshotOfThisJob(Table table) {
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.summary() != null
          && plan.jobId().equals(snapshot.summary().get(SnapshotStamp.JOB_ID))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Files added by any snapshot stamped with the job, current history or not: data files, and the
   * delete files a conversion adds.
   */
  private Set<String> addedByThisJob(Table table) {
    Set<String> added = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.summary() != null
          && plan.jobId().equals(snapshot.summary().get(SnapshotStamp.JOB_ID))) {
        SnapshotChanges.builderFor(table)
            .snapshot(snapshot)
            .build()
            .addedDataFiles()
            .forEach(file -> added.add(file.location()));
        SnapshotChanges.builderFor(table)
            .snapshot(snapshot)
            .build()
            .addedDeleteFiles()
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
