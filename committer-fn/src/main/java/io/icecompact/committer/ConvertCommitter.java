package io.icecompact.committer;

import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.EqualityDeleteScope;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.IcebergFileJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.ConvertOptions;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.ContentFileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer stage of a {@code convert-equality-deletes} job: one Iceberg {@code RewriteFiles}
 * ({@code replace}: readers' incremental scans skip it, it changes no row) that removes the
 * equality delete files the job retired ({@link EqualityDeleteRetirement}) and adds the workers'
 * position deletes or deletion vectors (removing, on v3, the DVs they merged), validated from the
 * pinned snapshot.
 *
 * <h2>Why no row changes</h2>
 *
 * A converted data file's new deletes hold exactly the positions its equality deletes deleted at
 * the pinned snapshot; an equality delete goes only when every data file it applied to then was
 * converted; data files added later have higher sequence numbers, which it never applied to. What
 * would break this is refused before each swap ({@link ConversionConflicts}): a concurrent commit
 * that removed a converted data file, or gave it a DV. A concurrent removal of a delete file the
 * commit removes fails Iceberg's own check (a {@code RewriteFiles} fails on a missing file). New
 * equality or position deletes from other writers stay and apply as before.
 *
 * <h2>Failure semantics</h2>
 *
 * As a rewrite's: a result that disagrees with the plan fails the job before any commit; a refused
 * group is {@code CONFLICTED} and the rest committed again; a commit that lost every race until the
 * commit time ran out is {@code CONTENDED}; an unknown outcome is looked up by the job's stamp, and
 * while unknown nothing is deleted. Counts come from the committed snapshot's summary.
 */
final class ConvertCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(ConvertCommitter.class);
  private static final int MAX_CONFLICT_ROUNDS = 5;
  private static final int COMMIT_INDEX = 0;

  private final TableAccess access;
  private final CommitGuard guard;
  private final LongSupplier invocationMillisLeft;

  ConvertCommitter(TableAccess access, CommitGuard guard, LongSupplier invocationMillisLeft) {
    this.access = access;
    this.guard = guard;
    this.invocationMillisLeft = invocationMillisLeft;
  }

  /** A group whose result is valid: its conversion and its planned tasks (with delete files). */
  private record Ready(PlannedGroup planned, ConvertedGroup result, List<FileScanTask> tasks) {}

  JobResult commit(JobPlan plan, JobStore store, WorkLocation work, long started) {
    Table table = access.loadTable(plan.table());
    JobCommitter.requirePinnedIsAncestor(table, plan);
    ConvertOptions options = ConvertOptions.parse(plan.options());
    EqualityDeleteScope scope =
        store
            .readDocument(work.equalityDeleteScope(), EqualityDeleteScope.class)
            .filter(stored -> stored.pinnedSnapshotId() == plan.pinned().snapshotId())
            .orElseThrow(
                () ->
                    new PlanIntegrityException(
                        "Job "
                            + plan.jobId()
                            + " has no equality delete scope for its pinned snapshot at "
                            + work.equalityDeleteScope()));
    // a commit of an earlier run that stopped before storing its result (its cleanup may have
    // deleted the outputs of the groups it left out)
    Optional<Snapshot> earlier = stamped(table, plan);
    Map<Integer, GroupOutcome> outcomes = new TreeMap<>();
    Map<Integer, Ready> ready = new TreeMap<>();
    for (PlannedGroup group : plan.groups()) {
      Optional<ConvertedGroup> result =
          store.readDocument(work.convertedGroup(group.index()), ConvertedGroup.class);
      if (result.isEmpty()) {
        outcomes.put(group.index(), outcome(group, Status.FAILED, failure(store, work, group)));
        continue;
      }
      List<FileScanTask> tasks = store.readGroupTasks(work, plan, group.index());
      check(plan, group, result.get(), tasks, table, earlier.isEmpty());
      ready.put(group.index(), new Ready(group, result.get(), tasks));
    }
    if (!options.allowPartial() && ready.size() < plan.groups().size()) {
      ready
          .values()
          .forEach(
              group ->
                  outcomes.put(
                      group.planned().index(),
                      outcome(
                          group.planned(),
                          Status.NOT_COMMITTED,
                          "not committed: allow-partial=false and a group failed")));
      ready.clear();
    }

    if (earlier.isPresent() && !ready.isEmpty()) {
      // that run left out the groups concurrent commits refused up to the snapshot it committed
      // on: leave them out again, so that the retirement and the outcomes are that commit's
      try {
        new ConversionConflicts(table.io(), plan.pinned().snapshotId(), convertedFiles(ready))
            .check(earlier.get().parentId(), table::snapshot);
      } catch (ConversionConflicts.Refused e) {
        dropConflicted(ready, outcomes, e.dataFiles());
      }
    }

    List<String> problems = new ArrayList<>();
    List<CommitAttempt> attempts = new ArrayList<>();
    CommitDeadline deadline =
        CommitDeadline.startingNow(
            table.properties(),
            invocationMillisLeft == null
                ? OptionalLong.empty()
                : OptionalLong.of(invocationMillisLeft.getAsLong()));
    Snapshot committed = null;
    boolean unknown = false;
    EqualityDeleteRetirement retirement = EqualityDeleteRetirement.of(scope, List.of());
    int conflictRounds = 0;
    while (!ready.isEmpty()) {
      retirement =
          EqualityDeleteRetirement.of(scope, ready.values().stream().map(Ready::result).toList());
      if (retirement.retired().isEmpty()) {
        String reason =
            String.format(
                "not committed: each of the %d equality delete files it converted still applies to"
                    + " a data file this job did not convert (outside its filter, in a group"
                    + " left for the next run, failed or conflicted), so none could be removed",
                retirement.kept().size());
        ready
            .values()
            .forEach(
                g ->
                    outcomes.put(
                        g.planned().index(), outcome(g.planned(), Status.NOT_COMMITTED, reason)));
        ready.clear();
        break;
      }
      Optional<Snapshot> existing = stamped(table, plan);
      if (existing.isPresent()) {
        committed = existing.get(); // an earlier run's commit landed: do not commit twice
        break;
      }
      ConversionConflicts conflicts =
          new ConversionConflicts(table.io(), plan.pinned().snapshotId(), convertedFiles(ready));
      WatchedOperations ops =
          new WatchedOperations(
              WatchedOperations.operationsOf(table),
              COMMIT_INDEX,
              conflicts::check,
              attempts,
              deadline.retrySettings());
      try {
        RewriteFiles rewrite =
            rewrite(WatchedOperations.watched(table, ops), plan, ready, retirement);
        guard.check();
        rewrite.commit();
        table.refresh();
        committed = stamped(table, plan).orElse(null);
        if (committed == null) {
          problems.add("the commit succeeded but its snapshot is not in the current history");
        }
        break;
      } catch (ConversionConflicts.Refused e) {
        dropConflicted(ready, outcomes, e.dataFiles());
        if (++conflictRounds >= MAX_CONFLICT_ROUNDS || !options.allowPartial()) {
          endAll(ready, outcomes, Status.CONFLICTED, "not committed: " + e.getMessage());
        }
      } catch (CommitStateUnknownException e) {
        table.refresh();
        committed = stamped(table, plan).orElse(null);
        if (committed == null) {
          unknown = true;
          endAll(
              ready,
              outcomes,
              Status.NOT_COMMITTED,
              "the commit's outcome is unknown (" + e.getMessage() + "); re-run the committer");
        }
        break;
      } catch (CommitFailedException e) {
        if (deadline.passed()) {
          endAll(
              ready,
              outcomes,
              Status.CONTENDED,
              String.format(
                  "lost the commit race to other writers' commits until the commit time ran out"
                      + " (%s); run the job again. Last: %s",
                  deadline.bound(), e.getMessage()));
        } else {
          deadline.pause();
        }
      } catch (ValidationException e) {
        // Iceberg's own check ran first: a delete file this commit removes is gone. A concurrent
        // compaction does that as it removes the converted data files: name them, drop their
        // groups and commit the rest; a refusal nothing explains ends every group
        table.refresh();
        try {
          conflicts.check(WatchedOperations.operationsOf(table).current());
          endAll(ready, outcomes, Status.CONFLICTED, "commit refused: " + e.getMessage());
        } catch (ConversionConflicts.Refused explained) {
          dropConflicted(ready, outcomes, explained.dataFiles());
          if (++conflictRounds >= MAX_CONFLICT_ROUNDS || !options.allowPartial()) {
            endAll(ready, outcomes, Status.CONFLICTED, "not committed: " + explained.getMessage());
          }
        }
      }
    }

    Set<String> committedOutputs = new HashSet<>();
    if (committed != null) {
      for (Ready group : ready.values()) {
        outcomes.put(group.planned().index(), converted(group, retirement, committed));
        group.result().files().stream()
            .filter(retirement::commits)
            .forEach(file -> committedOutputs.add(location(file.positionDeletes())));
      }
      problems.addAll(verify(committed, retirement, committedOutputs.size(), ready));
    }
    if (!unknown) {
      deleteUncommittedOutputs(table, plan, store, work, committedOutputs, problems);
    }
    JobResult result =
        report(
                plan,
                outcomes,
                committed,
                retirement,
                committedOutputs.size(),
                ready,
                problems,
                unknown)
            .durationMillis(System.currentTimeMillis() - started)
            .commit(attempts.isEmpty() ? null : CommitAttempts.of(attempts, 0))
            .build();
    store.writeDocument(work.jobResult(), result);
    LOG.info(
        "[{} {} committer] {}: {} equality delete files converted in snapshot {}, {} kept",
        plan.table(),
        plan.jobId(),
        result.status(),
        result.conversion().convertedEqualityDeleteFilesCount(),
        result.snapshotIds(),
        result.conversion().keptEqualityDeleteFilesCount());
    return result;
  }

  /**
   * A stored result must convert exactly the group's planned data files, at the pinned snapshot;
   * its delete files must exist unless an earlier run committed ({@code outputsMustExist} false),
   * whose cleanup deleted those of the groups it left out.
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
    String problem = null;
    if (!plan.jobId().equals(result.jobId())
        || result.pinnedSnapshotId() != plan.pinned().snapshotId()) {
      problem =
          "its result belongs to job "
              + result.jobId()
              + " at snapshot "
              + result.pinnedSnapshotId();
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
        } else if (outputsMustExist && !table.io().newInputFile(written.location()).exists()) {
          problem = "its delete file " + written.location() + " does not exist";
        }
      }
    }
    if (problem == null && !converted.equals(planned)) {
      problem =
          String.format(
              "it converted %d data files, the plan has %d (%d in common)",
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

  private static RewriteFiles rewrite(
      Table table, JobPlan plan, Map<Integer, Ready> ready, EqualityDeleteRetirement retirement) {
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(plan.pinned().snapshotId());
    Map<String, DeleteFile> equalityDeletes = new LinkedHashMap<>();
    Map<String, DeleteFile> replaced = new LinkedHashMap<>();
    for (Ready group : ready.values()) {
      for (FileScanTask task : group.tasks()) {
        task.deletes().stream()
            .filter(delete -> retirement.retired().contains(delete.location()))
            .forEach(delete -> equalityDeletes.putIfAbsent(delete.location(), delete));
      }
      for (ConvertedGroup.File file : group.result().files()) {
        if (retirement.commits(file)) {
          rewrite.addFile(deleteFile(file.positionDeletes(), table));
          for (var node : file.replacedDeletes()) {
            DeleteFile old = deleteFile(node, table);
            replaced.putIfAbsent(old.location() + "@" + old.contentOffset(), old);
          }
        }
      }
    }
    equalityDeletes.values().forEach(rewrite::deleteFile);
    replaced.values().forEach(rewrite::deleteFile);
    rewrite.set(SnapshotStamp.JOB_ID, plan.jobId());
    rewrite.set(SnapshotStamp.COMMIT_INDEX, Integer.toString(COMMIT_INDEX));
    rewrite.set(SnapshotStamp.GROUPS, Integer.toString(ready.size()));
    return rewrite;
  }

  private static DeleteFile deleteFile(com.fasterxml.jackson.databind.JsonNode node, Table table) {
    return (DeleteFile) IcebergFileJson.contentFile(node, table.specs());
  }

  private static String location(com.fasterxml.jackson.databind.JsonNode node) {
    return node.get("file-path").textValue();
  }

  private static Optional<Snapshot> stamped(Table table, JobPlan plan) {
    return Optional.ofNullable(
        SnapshotStamp.commitsOf(table, plan.jobId(), plan.pinned().snapshotId()).get(COMMIT_INDEX));
  }

  private static Set<String> convertedFiles(Map<Integer, Ready> ready) {
    Set<String> files = new HashSet<>();
    ready.values().forEach(g -> g.result().files().forEach(f -> files.add(f.dataFile())));
    return files;
  }

  private static void dropConflicted(
      Map<Integer, Ready> ready,
      Map<Integer, GroupOutcome> outcomes,
      Map<String, String> dataFiles) {
    ready
        .values()
        .removeIf(
            group -> {
              Optional<String> reason =
                  group.result().files().stream()
                      .map(file -> dataFiles.get(file.dataFile()))
                      .filter(java.util.Objects::nonNull)
                      .findFirst();
              reason.ifPresent(
                  text ->
                      outcomes.put(
                          group.planned().index(),
                          outcome(group.planned(), Status.CONFLICTED, "not committed: " + text)));
              return reason.isPresent();
            });
  }

  private static void endAll(
      Map<Integer, Ready> ready,
      Map<Integer, GroupOutcome> outcomes,
      Status status,
      String reason) {
    ready
        .values()
        .forEach(g -> outcomes.put(g.planned().index(), outcome(g.planned(), status, reason)));
    ready.clear();
  }

  private static String failure(JobStore store, WorkLocation work, PlannedGroup group) {
    return store
        .readGroupFailure(work, group.index())
        .map(failure -> failure.errorType() + ": " + failure.message())
        .orElse("no result was stored for it (its worker did not finish)");
  }

  private static GroupOutcome outcome(PlannedGroup group, Status status, String reason) {
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

  private static GroupOutcome converted(
      Ready group, EqualityDeleteRetirement retirement, Snapshot committed) {
    List<ConvertedGroup.File> files = group.result().files();
    long notFully = files.stream().filter(file -> !retirement.fullyConverted(file)).count();
    String reason =
        notFully == 0
            ? null
            : String.format(
                "%d of its %d data files keep equality deletes that still apply to data files this"
                    + " job did not convert",
                notFully, files.size());
    return new GroupOutcome(
        group.planned().index(),
        group.planned().partition(),
        Status.CONVERTED,
        reason,
        group.planned().inputFiles(),
        group.planned().inputBytes(),
        (int) files.stream().filter(retirement::commits).count(),
        files.stream().filter(retirement::commits).mapToLong(ConvertedGroup.File::positions).sum(),
        committed.snapshotId(),
        group.planned().expectedRewritePath(),
        group.planned().expectedRewritePathReason(),
        0);
  }

  /**
   * The committed snapshot's summary against what was committed: the table's word, not ours. On v3
   * the merged DVs are removed too, so removed delete files are at least the retired ones.
   */
  private static List<String> verify(
      Snapshot committed,
      EqualityDeleteRetirement retirement,
      int added,
      Map<Integer, Ready> ready) {
    List<String> problems = new ArrayList<>();
    long addedDeletes = CommitVerifier.count(committed, SnapshotSummary.ADDED_DELETE_FILES_PROP);
    long removedDeletes =
        CommitVerifier.count(committed, SnapshotSummary.REMOVED_DELETE_FILES_PROP);
    long addedData = CommitVerifier.count(committed, SnapshotSummary.ADDED_FILES_PROP);
    long removedData = CommitVerifier.count(committed, SnapshotSummary.DELETED_FILES_PROP);
    if (addedDeletes != added) {
      problems.add(
          String.format(
              "snapshot %d added %d delete files, the job committed %d",
              committed.snapshotId(), addedDeletes, added));
    }
    if (removedDeletes < retirement.retired().size()) {
      problems.add(
          String.format(
              "snapshot %d removed %d delete files, fewer than the %d equality deletes retired",
              committed.snapshotId(), removedDeletes, retirement.retired().size()));
    }
    if (addedData != 0 || removedData != 0) {
      problems.add(
          String.format(
              "snapshot %d changed data files (%d added, %d removed); a conversion must not",
              committed.snapshotId(), addedData, removedData));
    }
    return problems;
  }

  /**
   * Deletes every delete file the job wrote that the commit does not hold: outputs of groups not
   * committed, of data files whose equality deletes were all kept, and of attempts that never
   * reported. Only files named for the job; only once the commit's outcome is known.
   */
  private void deleteUncommittedOutputs(
      Table table,
      JobPlan plan,
      JobStore store,
      WorkLocation work,
      Set<String> committed,
      List<String> problems) {
    Map<Integer, List<String>> uncommitted = new TreeMap<>();
    Map<Integer, Integer> reported = new HashMap<>();
    for (PlannedGroup group : plan.groups()) {
      Optional<ConvertedGroup> result;
      try {
        result = store.readDocument(work.convertedGroup(group.index()), ConvertedGroup.class);
      } catch (RuntimeException unreadable) {
        continue;
      }
      result.ifPresent(
          converted -> {
            reported.put(group.index(), converted.attempt());
            List<String> outputs = new ArrayList<>();
            converted.files().stream()
                .filter(file -> file.positionDeletes() != null)
                .map(file -> location(file.positionDeletes()))
                .filter(location -> !committed.contains(location))
                .distinct()
                .forEach(outputs::add);
            uncommitted.put(group.index(), outputs);
          });
    }
    OutputCleanup cleanup = new OutputCleanup(access.fileIO(), plan);
    problems.addAll(cleanup.delete(table, uncommitted));
    cleanup.deleteUnreported(store, work, reported);
  }

  private static JobResult.Builder report(
      JobPlan plan,
      Map<Integer, GroupOutcome> outcomes,
      Snapshot committed,
      EqualityDeleteRetirement retirement,
      int added,
      Map<Integer, Ready> ready,
      List<String> problems,
      boolean unknown) {
    List<GroupOutcome> groups = List.copyOf(outcomes.values());
    long converted = count(groups, Status.CONVERTED);
    long failed = count(groups, Status.FAILED) + count(groups, Status.NOT_COMMITTED);
    long conflicted = count(groups, Status.CONFLICTED);
    long contended = count(groups, Status.CONTENDED);
    String first =
        groups.stream()
            .map(GroupOutcome::reason)
            .filter(java.util.Objects::nonNull)
            .findFirst()
            .orElse("");
    JobStatus status;
    String reason;
    if (unknown) {
      status = JobStatus.UNKNOWN;
      reason =
          "The commit's outcome is unknown and it is not in the snapshot log yet; no file was deleted. Re-run the committer for this job to resolve it. "
              + first;
    } else if (converted == 0 && count(groups, Status.FAILED) == 0 && conflicted + contended > 0) {
      status = JobStatus.CONTENDED;
      reason = "No group was committed, none failed: " + first;
    } else if (converted == 0 && failed > 0 && count(groups, Status.FAILED) == 0) {
      status = JobStatus.NOTHING_TO_DO;
      reason = "Nothing converted: " + first;
    } else if (converted == 0) {
      status = JobStatus.FAILED;
      reason = "No group was committed; " + first;
    } else if (converted < plan.groups().size()) {
      status = JobStatus.PARTIAL;
      reason =
          String.format(
              "%d of %d groups converted, %d failed, %d conflicted, %d lost the commit race; first: %s",
              converted, plan.groups().size(), failed, conflicted, contended, first);
    } else {
      status = JobStatus.COMMITTED;
      reason =
          retirement.kept().isEmpty()
              ? null
              : String.format(
                  "%d equality delete files kept: they still apply to data files this job did not convert",
                  retirement.kept().size());
    }
    int retired = committed == null ? 0 : retirement.retired().size();
    long positions = 0;
    long bytesRead = 0;
    int dataFiles = 0;
    for (Ready group : ready.values()) {
      bytesRead += group.result().bytesRead();
      if (committed != null) {
        dataFiles += group.result().files().size();
        positions +=
            group.result().files().stream()
                .filter(retirement::commits)
                .mapToLong(ConvertedGroup.File::positions)
                .sum();
      }
    }
    return JobResult.builder(plan.jobId(), plan.table(), status)
        .reason(reason)
        .snapshotIds(committed == null ? List.of() : List.of(committed.snapshotId()))
        .removedDeleteFilesCount(
            committed == null
                ? 0
                : (int) CommitVerifier.count(committed, SnapshotSummary.REMOVED_DELETE_FILES_PROP))
        .rewrittenGroups((int) converted)
        .failedGroups((int) failed)
        .conflictedGroups((int) conflicted)
        .skippedGroups(plan.skippedGroups())
        .verification(new JobResult.Verification(problems.isEmpty(), List.copyOf(problems)))
        .groups(groups)
        .conversion(
            new JobResult.Conversion(
                retired,
                committed == null ? 0 : added,
                committed == null
                    ? retirement.kept().size() + retirement.retired().size()
                    : retirement.kept().size(),
                dataFiles,
                positions,
                bytesRead));
  }

  private static long count(List<GroupOutcome> groups, Status status) {
    return groups.stream().filter(group -> group.status() == status).count();
  }
}
