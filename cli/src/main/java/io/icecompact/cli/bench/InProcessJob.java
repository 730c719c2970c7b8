package io.icecompact.cli.bench;

import io.icecompact.cli.runner.EmbeddedJobRunner;
import io.icecompact.cli.runner.ProgressListener;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.worker.RewritePathChoice;
import java.util.List;
import java.util.Map;

/**
 * A whole {@code compact} job in the bench's own JVM, through the same embedded runner the command
 * uses; the stages are timed by the runner's progress calls (planned, committing, done).
 */
final class InProcessJob {
  private InProcessJob() {}

  static JobRunFigures run(Map<String, String> catalog, String table, RewritePathChoice path, int workers) {
    StageClock clock = new StageClock();
    long start = System.nanoTime();
    JobResult result =
        new EmbeddedJobRunner(workers, clock, EmbeddedJobRunner.GroupInterceptor.NONE, path)
            .run(new JobSpec(null, table, catalog, Map.of(), null, null, null));
    long end = System.nanoTime();
    return new JobRunFigures(
        (clock.planned - start) / 1e9, (clock.committing - clock.planned) / 1e9, (end - clock.committing) / 1e9,
        result, List.of());
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
