package io.icecompact.engine;

import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.PlanSummary;

/** What the embedded runner reports while a job runs; the CLI prints it on stderr. */
public interface ProgressListener {
  ProgressListener NONE = new ProgressListener() {};

  default void planned(PlanSummary summary) {}

  default void groupDone(GroupStatus status, int done, int total) {}

  default void groupFailed(GroupFailure failure, int done, int total) {}

  default void groupRetry(int groupIndex, int attempt, String cause) {}

  default void committing() {}
}
