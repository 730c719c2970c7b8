package io.icecompact.committer;

import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.EqualityDeleteScope;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.ConvertOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * One run of a {@code convert-equality-deletes} job's committer: what it read, how each group
 * ended, and what it committed. {@link ConvertedGroups} fills it, {@link ConversionCommit} commits
 * it, {@link ConversionReport} reports it.
 */
final class ConversionRun {
  /** A group whose result passed the checks, waiting to be committed. */
  record Ready(PlannedGroup planned, ConvertedGroup result) {}

  final JobPlan plan;
  final Table table;
  final JobStore store;
  final WorkLocation work;
  final ConvertOptions options;
  final EqualityDeleteScope scope;
  final Map<Integer, GroupOutcome> outcomes = new TreeMap<>();
  final Map<Integer, Ready> ready = new TreeMap<>();

  /** The live equality delete files of the groups read, by location: what the commit removes. */
  final Map<String, DeleteFile> equalityDeletes = new HashMap<>();

  /**
   * Groups not committed because every equality delete of their files still applies to a file the
   * job did not convert: held back, not failed (the next run that converts those files takes them).
   */
  final Set<Integer> heldBack = new HashSet<>();

  final List<String> problems = new ArrayList<>();
  final List<CommitAttempt> attempts = new ArrayList<>();
  EqualityDeleteRetirement retirement = EqualityDeleteRetirement.NONE;
  Snapshot committed;
  boolean unknown;

  ConversionRun(
      JobPlan plan,
      Table table,
      JobStore store,
      WorkLocation work,
      ConvertOptions options,
      EqualityDeleteScope scope) {
    this.plan = plan;
    this.table = table;
    this.store = store;
    this.work = work;
    this.options = options;
    this.scope = scope;
  }

  void end(PlannedGroup group, Status status, String reason) {
    ready.remove(group.index());
    outcomes.put(group.index(), outcome(group, status, reason));
  }

  /** Ends a group whose equality deletes all still apply to files the job did not convert. */
  void holdBack(PlannedGroup group, String reason) {
    end(group, Status.NOT_COMMITTED, reason);
    heldBack.add(group.index());
  }

  /** Ends every group still waiting to be committed. */
  void endAll(Status status, String reason) {
    List.copyOf(ready.values()).forEach(group -> end(group.planned(), status, reason));
  }

  /** Ends the groups holding a data file of {@code dataFiles} (location to why), conflicted. */
  void conflicted(Map<String, String> dataFiles) {
    for (Ready group : List.copyOf(ready.values())) {
      Optional<String> reason =
          group.result().files().stream()
              .map(file -> dataFiles.get(file.dataFile()))
              .filter(Objects::nonNull)
              .findFirst();
      reason.ifPresent(text -> end(group.planned(), Status.CONFLICTED, "not committed: " + text));
    }
  }

  Set<String> convertedDataFiles() {
    Set<String> files = new HashSet<>();
    ready.values().forEach(g -> g.result().files().forEach(f -> files.add(f.dataFile())));
    return files;
  }

  /**
   * Delete files the commit added, as Iceberg counts them: one per data file with a retired delete
   * (v3's deletion vectors are one each, though a group's share a Puffin file).
   */
  int committedDeleteFileCount() {
    if (committed == null) {
      return 0;
    }
    return (int)
        ready.values().stream()
            .flatMap(group -> group.result().files().stream())
            .filter(retirement::commits)
            .count();
  }

  /**
   * Locations of the delete files the commit holds: those of files with a retired delete (one for
   * all of a v3 group's deletion vectors).
   */
  Set<String> committedOutputs() {
    Set<String> outputs = new HashSet<>();
    if (committed != null) {
      ready.values().stream()
          .flatMap(group -> group.result().files().stream())
          .filter(retirement::commits)
          .forEach(file -> outputs.add(ConvertedGroups.location(file.positionDeletes())));
    }
    return outputs;
  }

  static GroupOutcome outcome(PlannedGroup group, Status status, String reason) {
    return new GroupOutcome(
        group.index(),
        group.partition(),
        status,
        reason,
        group.inputFiles(),
        group.inputBytes(),
        0,
        0,
        null,
        group.expectedRewritePath(),
        group.expectedRewritePathReason(),
        0);
  }
}
