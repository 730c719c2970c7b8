package io.icecompact.engine.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.committer.JobCommitter;
import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.GroupAttempts;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.StoredPlan;
import io.icecompact.testkit.CommitFaultCatalog;
import io.icecompact.worker.GroupRewriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Table;

/**
 * One soak job: everything it draws from its own seeded {@link Random} first (table, fault,
 * options, writes), then the run through {@link EmbeddedJobRunner} with the writers and the fault
 * in its hooks, then the checks; an UNKNOWN job is re-committed as {@code icecompact recommit}
 * does, and checked again.
 */
final class SoakJob {
  /** One table of the soak, with its writer and the invariants' memory of it. */
  record SoakTable(String name, SoakWriter writer, SoakInvariants invariants) {}

  private final Map<String, String> catalog;
  private final String warehouseKey;
  private final SoakFigures figures;
  private final String context;

  private final SoakTable soakTable;
  private final SoakFault fault;
  private final int writesBefore;
  private final boolean writeDuringWorkers;
  private final boolean writeBeforeCommit;
  private final boolean writeBeforeRecommit;
  private final Map<String, String> options;
  private final int faultGroup;
  private final int passingCommits;
  private final Random writes;
  private final JobAction action;

  private final AtomicBoolean faultFired = new AtomicBoolean();
  private final AtomicBoolean wroteDuringWorkers = new AtomicBoolean();

  SoakJob(
      long seed,
      int number,
      int jobs,
      List<SoakTable> tables,
      Map<String, String> catalog,
      String warehouseKey,
      SoakFigures figures) {
    this.catalog = catalog;
    this.warehouseKey = warehouseKey;
    this.figures = figures;
    Random random = new Random(seed ^ (number * 0x9E3779B97F4A7C15L));
    this.soakTable = tables.get(random.nextInt(tables.size()));
    this.fault = SoakFault.draw(random);
    this.writesBefore = random.nextInt(3);
    this.writeDuringWorkers = random.nextInt(10) < 3;
    this.writeBeforeCommit = random.nextInt(10) < 4;
    this.writeBeforeRecommit = random.nextBoolean();
    this.options = options(random);
    this.faultGroup = random.nextInt(2);
    int passing =
        options.containsKey(RewriteOptions.PARTIAL_PROGRESS_ENABLED) ? random.nextInt(2) : 0;
    this.writes = new Random(random.nextLong());
    // a third of the jobs convert equality deletes instead (drawn apart, so the other draws of a
    // seed stay what they were); a conversion takes only allow-partial of the options
    this.action =
        new Random(seed ^ number ^ 0xC0DEL).nextInt(3) == 0
            ? JobAction.CONVERT_EQUALITY_DELETES
            : JobAction.REWRITE_DATA_FILES;
    if (action == JobAction.CONVERT_EQUALITY_DELETES) {
      options.keySet().retainAll(Set.of(RewriteOptions.ALLOW_PARTIAL));
    }
    this.passingCommits = action == JobAction.CONVERT_EQUALITY_DELETES ? 0 : passing;
    this.context =
        String.format(
            "soak seed %d, job %d/%d %s on %s, fault %s (group %d, %d passing commits), writes %d/%s/%s, options %s",
            seed,
            number,
            jobs,
            action.value(),
            soakTable.name(),
            fault,
            faultGroup,
            passingCommits,
            writesBefore,
            writeDuringWorkers,
            writeBeforeCommit,
            options);
  }

  private static Map<String, String> options(Random random) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put(RewriteOptions.MIN_INPUT_FILES, "2");
    if (random.nextInt(4) == 0) {
      options.put(RewriteOptions.PARTIAL_PROGRESS_ENABLED, "true");
      options.put(
          RewriteOptions.PARTIAL_PROGRESS_MAX_COMMITS, Integer.toString(2 + random.nextInt(2)));
    }
    if (random.nextInt(7) == 0) {
      options.put(RewriteOptions.ALLOW_PARTIAL, "false");
    }
    if (random.nextInt(7) == 0) {
      options.put(RewriteOptions.USE_STARTING_SEQUENCE_NUMBER, "false");
    }
    if (random.nextInt(3) == 0) {
      options.put(RewriteOptions.DELETE_FILE_THRESHOLD, "1");
    }
    if (random.nextInt(5) == 0) {
      options.put(RewriteOptions.REWRITE_ALL, "true");
    }
    return options;
  }

  /** Runs and checks the job; any failure names the seed, the job and its draws. */
  void run(TableAccess access) {
    try {
      runAndCheck(access);
    } catch (AssertionError e) {
      throw e.getMessage() != null && e.getMessage().contains("soak seed")
          ? e
          : new AssertionError(context + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new AssertionError(context + ": " + e, e);
    }
  }

  private void runAndCheck(TableAccess access) {
    figures.job();
    figures.drawn(fault);
    if (Boolean.getBoolean("soak.verbose")) {
      System.err.println(context);
    }
    Table table = access.loadTable(soakTable.name());
    for (int i = 0; i < writesBefore; i++) {
      figures.write(soakTable.writer().write(table, writes));
    }
    AtomicReference<Map<String, Long>> expected = new AtomicReference<>(LiveRows.multiset(table));
    JobSpec spec =
        new JobSpec(null, soakTable.name(), catalog, options, null, null, null, action)
            .withJobIdIfAbsent();

    if (fault == SoakFault.STORAGE_WORKER_OUTPUT) {
      FaultingLocalFileIO.arm(
          warehouseKey, path -> path.contains("/data/") && path.contains(spec.jobId()));
    }
    JobResult result;
    try {
      result =
          new EmbeddedJobRunner(2, ProgressListener.NONE, hooks(access, table, expected)).run(spec);
    } catch (RuntimeException e) {
      if (!(fault == SoakFault.STORAGE_COMMIT_MANIFEST
          && FaultingLocalFileIO.disarm(warehouseKey))) {
        throw e;
      }
      // the run stopped with the storage error before any commit reached the catalog: nothing
      // changed,
      // and the operator re-commits
      System.err.printf("%s: the run stopped: %s%n", context, e);
      figures.fired(fault);
      figures.status("stopped by " + e.getClass().getSimpleName());
      assertThat(e)
          .as("%s: what the stopped run tells the operator", context)
          .hasMessageContaining("Nothing was deleted")
          .hasMessageContaining("icecompact recommit --job-id " + spec.jobId());
      assertThat(SoakInvariants.stamped(table, spec.jobId()))
          .as("%s: stopped run's snapshots", context)
          .isEmpty();
      SoakInvariants.assertRows(
          LiveRows.multiset(table), expected.get(), context + ": after the stopped run");
      recommit(access, table, spec);
      return;
    }
    boolean catalogFired = CommitFaultCatalog.fired(warehouseKey) > 0;
    CommitFaultCatalog.reset(warehouseKey);
    if (catalogFired || FaultingLocalFileIO.disarm(warehouseKey)) {
      faultFired.set(true);
    }
    if (faultFired.get()) {
      figures.fired(fault);
    }
    count(result);
    soakTable.invariants().check(table, result, expected.get(), context);
    expectOutcomeOfFault(result);
    if (result.status() == JobStatus.UNKNOWN) {
      recommit(access, table, spec);
    }
  }

  private GroupInterceptor hooks(
      TableAccess access, Table table, AtomicReference<Map<String, Long>> expected) {
    return new GroupInterceptor() {
      @Override
      public void beforeGroup(GroupRequest request) {
        if (writeDuringWorkers && wroteDuringWorkers.compareAndSet(false, true)) {
          synchronized (writes) {
            figures.write(soakTable.writer().write(access.loadTable(soakTable.name()), writes));
          }
        }
        if (request.groupIndex() == faultGroup) {
          failWorker(request);
        }
      }

      @Override
      public void beforeCommit(PlanSummary summary) {
        if (fault == SoakFault.COMPETING_JOB) {
          competingJob(access, table);
          faultFired.set(true);
        }
        if (writeBeforeCommit) {
          synchronized (writes) {
            figures.write(soakTable.writer().write(table, writes));
          }
        }
        expected.set(LiveRows.multiset(table));
        if (fault == SoakFault.STORAGE_COMMIT_MANIFEST) {
          FaultingLocalFileIO.arm(
              warehouseKey, path -> path.contains("/metadata/") && path.endsWith(".avro"));
        }
        if (fault.catalog()) {
          CommitFaultCatalog.arm(
              warehouseKey,
              fault == SoakFault.CATALOG_LANDED_ANSWER_LOST
                  ? CommitFaultCatalog.Fault.LANDED_ANSWER_LOST
                  : CommitFaultCatalog.Fault.DID_NOT_LAND,
              passingCommits);
        }
      }
    };
  }

  private void failWorker(GroupRequest request) {
    switch (fault) {
      case WORKER_TRANSIENT -> {
        if (request.attempt() == 1) {
          faultFired.set(true);
          throw new TransientException("injected: connection reset", null);
        }
      }
      case WORKER_APPLICATION -> {
        faultFired.set(true);
        throw new CorruptInputFileException("injected: bad footer");
      }
      case WORKER_KILLED_AFTER_WRITING -> {
        if (request.attempt() == 1) {
          rewriteFully(request, false);
          faultFired.set(true);
          throw new TransientException("injected: killed after writing its outputs", null);
        }
      }
      case WORKER_KILLED_EVERY_ATTEMPT -> {
        if (request.attempt() == GroupAttempts.MAX) {
          rewriteFully(request, true);
          faultFired.set(true);
        }
        throw new TransientException("injected: Sandbox.Timedout", null);
      }
      default -> {}
    }
  }

  /**
   * The worker's whole attempt, as a killed worker leaves it: outputs written, its result stored or
   * not.
   */
  private static void rewriteFully(GroupRequest request, boolean loseResult) {
    try (TableAccess worker = new TableAccess(request.catalogProperties())) {
      new GroupRewriter(worker).rewrite(request);
      if (loseResult) {
        worker
            .fileIO()
            .deleteFile(new WorkLocation(request.workLocation()).groupResult(request.groupIndex()));
        worker
            .fileIO()
            .deleteFile(
                new WorkLocation(request.workLocation()).convertedGroup(request.groupIndex()));
      }
    }
  }

  /**
   * Another job for the same table, fault-free, run and checked between this job's workers and its
   * commit.
   */
  private void competingJob(TableAccess access, Table table) {
    Map<String, Long> before = LiveRows.multiset(table);
    JobSpec other =
        new JobSpec(
                null,
                soakTable.name(),
                catalog,
                Map.of(RewriteOptions.MIN_INPUT_FILES, "2"),
                null,
                null,
                null)
            .withJobIdIfAbsent();
    JobResult result = new EmbeddedJobRunner(2, ProgressListener.NONE).run(other);
    count(result);
    soakTable.invariants().check(table, result, before, context + ", the competing job");
    assertThat(result.status())
        .as("%s: the competing job", context)
        .isIn(JobStatus.COMMITTED, JobStatus.NOTHING_TO_DO);
  }

  /**
   * What the drawn fault, once it fired, says about the job's end (the invariants hold whatever it
   * is).
   */
  private void expectOutcomeOfFault(JobResult result) {
    if (!faultFired.get()) {
      if (fault == SoakFault.NONE && !writeDuringWorkers && !writeBeforeCommit) {
        assertThat(result.status())
            .as("%s: a quiet job", context)
            .isIn(JobStatus.COMMITTED, JobStatus.NOTHING_TO_DO);
      }
      return;
    }
    switch (fault) {
      case CATALOG_LANDED_ANSWER_LOST ->
          assertThat(result.status())
              .as("%s: a lost answer of a commit that landed", context)
              .isIn(JobStatus.COMMITTED, JobStatus.PARTIAL);
      case CATALOG_DID_NOT_LAND ->
          assertThat(result.status())
              .as("%s: a commit that did not land", context)
              .isEqualTo(JobStatus.UNKNOWN);
      case WORKER_APPLICATION, WORKER_KILLED_EVERY_ATTEMPT ->
          assertThat(group(result).status())
              .as("%s: the failed worker's group", context)
              .isEqualTo(GroupOutcome.Status.FAILED);
      case STORAGE_WORKER_OUTPUT ->
          assertThat(result.groups())
              .as("%s: groups after a retried write", context)
              .noneSatisfy(g -> assertThat(g.status()).isEqualTo(GroupOutcome.Status.FAILED));
      case WORKER_TRANSIENT, WORKER_KILLED_AFTER_WRITING ->
          assertThat(group(result).status())
              .as("%s: the retried worker's group", context)
              .isNotEqualTo(GroupOutcome.Status.FAILED);
      default -> {}
    }
  }

  private GroupOutcome group(JobResult result) {
    return result.groups().stream()
        .filter(g -> g.groupIndex() == faultGroup)
        .findFirst()
        .orElseThrow(() -> new AssertionError(context + ": no outcome for group " + faultGroup));
  }

  /**
   * {@code icecompact recommit}'s steps: the stored plan, then the committer alone; checked as a
   * job.
   */
  private void recommit(TableAccess access, Table table, JobSpec spec) {
    if (writeBeforeRecommit) {
      figures.write(soakTable.writer().write(table, writes));
    }
    Map<String, Long> expected = LiveRows.multiset(table);
    JobSpec again =
        new JobSpec(spec.jobId(), soakTable.name(), catalog, Map.of(), null, null, null);
    JobResult result;
    try (TableAccess stage = new TableAccess(catalog)) {
      PlanSummary plan = StoredPlan.summary(stage, again, DeploymentScope.unrestricted());
      result = new JobCommitter(stage).commit(CommitRequest.of(again, plan));
    }
    figures.recommit();
    figures.status("re-commit " + result.status().name());
    soakTable.invariants().check(table, result, expected, context + ", re-committed");
    assertThat(result.status()).as("%s: re-committed", context).isNotEqualTo(JobStatus.UNKNOWN);
  }

  private void count(JobResult result) {
    figures.status(result.status().name());
    result.groups().forEach(g -> figures.group(g.status().name()));
  }
}
