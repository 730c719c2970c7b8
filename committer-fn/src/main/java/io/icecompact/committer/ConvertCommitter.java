package io.icecompact.committer;

import io.icecompact.core.error.ApplicationException;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.EqualityDeleteScope;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.ConvertOptions;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer stage of a {@code convert-equality-deletes} job: reads and checks the groups'
 * conversions ({@link ConvertedGroups}), commits one Iceberg {@code RewriteFiles} ({@code replace}:
 * it changes no row, and incremental readers skip it) that removes the equality delete files the
 * job retired ({@link EqualityDeleteRetirement}) and adds the workers' position deletes or deletion
 * vectors, removing on v3 the DVs they merged ({@link ConversionCommit}), deletes every delete file
 * of the job the commit does not hold, and reports from the committed snapshot ({@link
 * ConversionReport}).
 *
 * <h2>Why no row changes</h2>
 *
 * A converted data file's new deletes hold exactly the positions its equality deletes deleted at
 * the pinned snapshot; an equality delete goes only when every data file it applied to then was
 * converted; data files added later have higher sequence numbers, which it never applied to. What
 * would break this is refused before each swap ({@link ConversionConflicts}): a concurrent commit
 * that removed a converted data file, or gave it a DV. Equality and position deletes other writers
 * add meanwhile stay and apply as before.
 *
 * <h2>Failure semantics</h2>
 *
 * As a rewrite's: a result that disagrees with the plan fails the job before any commit (its
 * outputs deleted); a refused group is {@code CONFLICTED} and the rest committed again; a commit
 * that lost every race until the commit time ran out is {@code CONTENDED}; an unknown outcome is
 * looked up by the job's stamp, and while unknown nothing is deleted.
 */
final class ConvertCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(ConvertCommitter.class);

  private final TableAccess access;
  private final CommitGuard guard;
  private final LongSupplier invocationMillisLeft;

  ConvertCommitter(TableAccess access, CommitGuard guard, LongSupplier invocationMillisLeft) {
    this.access = access;
    this.guard = guard;
    this.invocationMillisLeft = invocationMillisLeft;
  }

  JobResult commit(JobPlan plan, JobStore store, WorkLocation work, long started) {
    Table table = access.loadTable(plan.table());
    ConversionRun run =
        new ConversionRun(
            plan,
            table,
            store,
            work,
            ConvertOptions.parse(plan.options()),
            scope(plan, store, work));
    // a commit of an earlier run that stopped before storing its result: that snapshot is the
    // job's, and its cleanup may have deleted the outputs of the groups it left out
    Optional<Snapshot> earlier = ConversionCommit.stamped(run);
    try {
      JobCommitter.requirePinnedIsAncestor(table, plan);
      ConvertedGroups.read(run, earlier.isEmpty());
    } catch (ApplicationException e) {
      // this job will never commit: nothing of it is live unless an earlier run committed
      OutputCleanup cleanup = new OutputCleanup(access.fileIO(), plan);
      if (!cleanup.anySnapshotOfThisJob(table)) {
        deleteUncommittedOutputs(run, Set.of());
      }
      throw e;
    }
    CommitDeadline deadline =
        CommitDeadline.startingNow(
            table.properties(),
            invocationMillisLeft == null
                ? OptionalLong.empty()
                : OptionalLong.of(invocationMillisLeft.getAsLong()));
    if (earlier.isPresent()) {
      EarlierConversion.recover(run, earlier.get());
    } else {
      new ConversionCommit(run, guard, deadline).commit();
    }
    if (!run.unknown) {
      // with an unknown outcome any of them may be live: kept until a re-run decides
      deleteUncommittedOutputs(run, run.committedOutputs());
    }
    JobResult result = ConversionReport.of(run, System.currentTimeMillis() - started);
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

  private static EqualityDeleteScope scope(JobPlan plan, JobStore store, WorkLocation work) {
    return store
        .readDocument(work.equalityDeleteScope(), EqualityDeleteScope.class)
        .filter(stored -> stored.pinnedSnapshotId() == plan.pinned().snapshotId())
        .orElseThrow(
            () ->
                new PlanIntegrityException(
                    String.format(
                        "Job %s has no equality delete scope for its pinned snapshot at %s",
                        plan.jobId(), work.equalityDeleteScope())));
  }

  /**
   * Deletes every delete file the job wrote that {@code committed} does not name: outputs of groups
   * not committed, of data files whose equality deletes were all kept, and of attempts that never
   * reported. Only files named for the job ({@link OutputCleanup}).
   */
  private void deleteUncommittedOutputs(ConversionRun run, Set<String> committed) {
    Map<Integer, List<String>> uncommitted = new TreeMap<>();
    Map<Integer, Integer> reported = new HashMap<>();
    for (PlannedGroup group : run.plan.groups()) {
      Optional<ConvertedGroup> result;
      try {
        result =
            run.store.readDocument(run.work.convertedGroup(group.index()), ConvertedGroup.class);
      } catch (RuntimeException unreadable) {
        continue; // names no outputs: they stay as orphans no snapshot references
      }
      result.ifPresent(
          converted -> {
            reported.put(group.index(), converted.attempt());
            List<String> outputs = new ArrayList<>();
            converted.files().stream()
                .filter(file -> file.positionDeletes() != null)
                .map(file -> ConvertedGroups.location(file.positionDeletes()))
                .filter(location -> !committed.contains(location))
                .distinct()
                .forEach(outputs::add);
            uncommitted.put(group.index(), outputs);
          });
    }
    OutputCleanup cleanup = new OutputCleanup(access.fileIO(), run.plan);
    run.problems.addAll(cleanup.delete(run.table, uncommitted));
    cleanup.deleteUnreported(run.store, run.work, reported);
  }
}
