package io.icecompact.bench;

import io.icecompact.cli.ExitFigures;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.worker.RewritePathChoice;
import java.util.List;
import java.util.Map;

/**
 * A whole {@code compact} job in the bench's own JVM, through the same embedded runner the command
 * uses; the stages are timed by the runner's progress calls (planned, committing, done), and its
 * CPU time is this process's over the run.
 */
final class InProcessJob {
  private InProcessJob() {}

  static JobRunFigures run(
      Map<String, String> catalog, String table, RewritePathChoice path, int workers) {
    StageClock clock = new StageClock();
    long cpuStart = ExitFigures.cpuNanos();
    long start = System.nanoTime();
    JobResult result =
        new EmbeddedJobRunner(workers, clock, EmbeddedJobRunner.GroupInterceptor.NONE, path)
            .run(new JobSpec(null, table, catalog, Map.of(), null, null, null));
    long end = System.nanoTime();
    long cpuEnd = ExitFigures.cpuNanos();
    // the bench's JVM does nothing else meanwhile; its RSS is the bench's, not the job's
    ExitFigures process =
        new ExitFigures(
            cpuStart < 0 || cpuEnd < 0 ? Double.NaN : (cpuEnd - cpuStart) / 1e9, Double.NaN);
    return new JobRunFigures(
        (clock.planned - start) / 1e9,
        (clock.committing - clock.planned) / 1e9,
        (end - clock.committing) / 1e9,
        result,
        List.of(),
        process,
        null);
  }

  private static final class StageClock implements ProgressListener {
    volatile long planned;
    volatile long committing;

    @Override
    public void planned(PlanSummary summary) {
      planned = System.nanoTime();
    }

    @Override
    public void committing() {
      committing = System.nanoTime();
    }
  }
}
