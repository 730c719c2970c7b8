package io.icecompact.engine;

import io.icecompact.committer.JobCommitter;
import io.icecompact.core.error.ApplicationException;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.GroupAttempts;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.error.WorkerOutOfMemoryException;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.RewritePathChoice;
import io.icecompact.worker.WorkerSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a job on one machine with the same stages the serverless pipeline runs: the planner, one
 * worker call per group on a thread pool (transient errors retried with a new attempt number, as
 * often as the Map state's Retry: {@link GroupAttempts}), then the committer. Failures are recorded
 * per group as the Map's Catch does.
 */
public final class EmbeddedJobRunner {

  private final int workers;
  private final ProgressListener progress;
  private final GroupInterceptor interceptor;
  private final RewritePathChoice pathChoice;

  public EmbeddedJobRunner(int workers, ProgressListener progress) {
    this(workers, progress, GroupInterceptor.NONE);
  }

  /** With a hook between the workers and the committer, for tests of concurrent writers. */
  public EmbeddedJobRunner(int workers, ProgressListener progress, GroupInterceptor interceptor) {
    this(workers, progress, interceptor, RewritePathChoice.AUTO);
  }

  /**
   * With the rewrite path the workers may take (the bench and the equivalence tests compare them).
   */
  public EmbeddedJobRunner(
      int workers,
      ProgressListener progress,
      GroupInterceptor interceptor,
      RewritePathChoice pathChoice) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1, got " + workers);
    }
    this.workers = workers;
    this.progress = progress;
    this.interceptor = interceptor;
    this.pathChoice = pathChoice;
  }

  /** Called around the stages; tests use it to commit concurrently or inject failures. */
  public interface GroupInterceptor {
    GroupInterceptor NONE = new GroupInterceptor() {};

    /** Before a worker attempt; may throw to simulate a worker failure. */
    default void beforeGroup(GroupRequest request) {}

    /** After all workers, before the committer. */
    default void beforeCommit(PlanSummary summary) {}
  }

  public JobResult run(JobSpec requested) {
    long started = System.currentTimeMillis();
    JobSpec spec = requested.withJobIdIfAbsent();
    try (TableAccess access = new TableAccess(spec.catalogProperties())) {
      PlanSummary summary = new RewritePlanner(access).plan(spec);
      progress.planned(summary);
      if (!summary.planned()) {
        return nothingToDo(access, summary);
      }
      return rewriteAndCommit(access, spec, summary, started);
    }
  }

  /** Runs the workers and the committer of a plan stored already (see {@link PlanCopy}). */
  public JobResult run(JobSpec spec, PlanSummary summary) {
    long started = System.currentTimeMillis();
    try (TableAccess access = new TableAccess(spec.catalogProperties())) {
      progress.planned(summary);
      return rewriteAndCommit(access, spec, summary, started);
    }
  }

  private JobResult rewriteAndCommit(
      TableAccess access, JobSpec spec, PlanSummary summary, long started) {
    rewriteAll(access, spec, summary);
    interceptor.beforeCommit(summary);
    progress.committing();
    try {
      return new JobCommitter(access).commit(CommitRequest.of(spec, summary), started);
    } catch (RuntimeException e) {
      if (e instanceof ApplicationException) {
        throw e; // a refusal the committer explains, with its outputs cleaned up
      }
      // storage or the catalog failed mid-commit: the rewrite is done and nothing was deleted, so
      // the
      // operator's next step is a re-commit, which finds any commit of the job that landed (the
      // committer
      // names a failure of the environment a TransientException; the message describes what it
      // wraps)
      Throwable cause = e instanceof TransientException && e.getCause() != null ? e.getCause() : e;
      throw new TransientException(
          String.format(
              "The commit of job %s did not finish: %s. Nothing was deleted; once the cause is gone, run"
                  + " `icecompact recommit --job-id %s` with the same catalog and table",
              summary.jobId(), FailureClassifier.describe(cause), summary.jobId()),
          e);
    }
  }

  /**
   * Runs only the workers of a stored plan: every group's result is stored in its work location,
   * and nothing is committed (the bench compares paths on the same groups this way).
   */
  public List<GroupFailure> rewriteOnly(JobSpec spec, PlanSummary summary) {
    try (TableAccess access = new TableAccess(spec.catalogProperties())) {
      progress.planned(summary);
      return rewriteAll(access, spec, summary);
    }
  }

  private List<GroupFailure> rewriteAll(TableAccess access, JobSpec spec, PlanSummary summary) {
    // each group running at once gets its share of the processors for its column copies, and of the
    // heap for an in-memory sort
    int groupsAtOnce = Math.min(workers, Math.max(1, summary.groupCount()));
    GroupRewriter rewriter =
        new GroupRewriter(access, WorkerSettings.sharedBy(groupsAtOnce).withPathChoice(pathChoice));
    List<GroupFailure> failures = Collections.synchronizedList(new ArrayList<>());
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = new WorkLocation(summary.workLocation());
    AtomicInteger done = new AtomicInteger();
    int total = summary.groupCount();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(workers, Math.max(1, total)));
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int index : summary.groupIndexes()) {
        futures.add(
            pool.submit(
                () -> {
                  try {
                    GroupStatus status = rewriteWithRetries(rewriter, spec, summary, index);
                    progress.groupDone(status, done.incrementAndGet(), total);
                  } catch (RuntimeException | OutOfMemoryError e) {
                    // out of memory: the group's buffers are garbage once its frames unwound, so
                    // the group
                    // fails, named, and the others go on as separate Lambda workers would (before,
                    // the pool
                    // stopped and the job was never committed nor its result stored)
                    GroupFailure failure = GroupFailure.of(index, outOfMemoryNamed(index, e));
                    // where the Map's Catch stores it (RecordGroupFailure): the committer, and a
                    // recommit,
                    // read failures only from the work location
                    try {
                      store.writeGroupFailure(work, failure);
                    } catch (RuntimeException notStored) {
                      // the group still fails: the committer then says no result was stored
                    }
                    failures.add(failure);
                    progress.groupFailed(failure, done.incrementAndGet(), total);
                  }
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while groups were being rewritten", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "A worker thread failed unexpectedly: " + FailureClassifier.describe(e.getCause()),
          e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return List.copyOf(failures);
  }

  private GroupStatus rewriteWithRetries(
      GroupRewriter rewriter, JobSpec spec, PlanSummary summary, int index) {
    for (int tries = 1; ; tries++) {
      // numbered as the deployed worker numbers it: a marker claimed in the work location
      // (JobStore)
      int attempt = rewriter.claimAttempt(summary.workLocation(), index);
      GroupRequest request = GroupRequest.of(spec, summary, index, attempt);
      try {
        beforeGroup(request);
        return rewriter.rewrite(
            request); // its failures typed by the stage, as the deployed worker's are
      } catch (RuntimeException classified) {
        if (!GroupAttempts.retried(classified, tries)) {
          throw classified;
        }
        progress.groupRetry(index, attempt + 1, classified.getMessage());
        // shorter waits than the Map's (2 s doubling): one machine, no throttled service to spare
        sleep(200L << (tries - 1));
      }
    }
  }

  /**
   * A failure the interceptor injects stands for the worker's own: typed as the stage types its
   * failures.
   */
  private void beforeGroup(GroupRequest request) {
    try {
      interceptor.beforeGroup(request);
    } catch (RuntimeException e) {
      throw GroupAttempts.classify(e, request.groupIndex(), request.jobId());
    }
  }

  /**
   * {@code failure} itself, unless it is or wraps an OutOfMemoryError: then the typed error that
   * names it, the heap and the setting that raises it.
   */
  private static RuntimeException outOfMemoryNamed(int index, Throwable failure) {
    return WorkerOutOfMemoryException.in(failure)
        .<RuntimeException>map(
            error ->
                new WorkerOutOfMemoryException(
                    index,
                    error,
                    Runtime.getRuntime().maxMemory(),
                    WorkerOutOfMemoryException.EMBEDDED_SETTING))
        .orElseGet(() -> (RuntimeException) failure);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The planner's result for a job that planned nothing, stored as its work location's only file,
   * so that {@code history} lists it (the deployed pipeline records it in its job log instead).
   */
  private static JobResult nothingToDo(TableAccess access, PlanSummary summary) {
    JobResult result = summary.nothingToDo();
    new JobStore(access.fileIO()).writeDocument(summary.planRef().work().jobResult(), result);
    return result;
  }
}
