package io.icecompact.engine.soak;

import java.util.Random;

/** The fault a soak job draws; each names where it strikes and what the job must end as. */
enum SoakFault {
  NONE,
  /**
   * The catalog commits the job's (first or a later) snapshot, then loses the answer: still
   * COMMITTED.
   */
  CATALOG_LANDED_ANSWER_LOST,
  /**
   * The catalog loses the answer of a commit that did not land: UNKNOWN, then a re-commit finishes
   * it.
   */
  CATALOG_DID_NOT_LAND,
  /** One group's first attempt fails with a transient error before writing: retried, no trace. */
  WORKER_TRANSIENT,
  /** One group fails with an application error: that group FAILED, the others committed. */
  WORKER_APPLICATION,
  /** One group's first attempt writes all its outputs and stores its result, then dies: retried. */
  WORKER_KILLED_AFTER_WRITING,
  /**
   * One group fails every attempt; the last one writes its outputs and is killed before storing its
   * result (as Lambda's timeout does): the group FAILED and its recorded outputs deleted.
   */
  WORKER_KILLED_EVERY_ATTEMPT,
  /** A second job for the same table commits between this job's workers and its committer. */
  COMPETING_JOB,
  /** Storage resets the connection creating one of the job's output files: the worker retries. */
  STORAGE_WORKER_OUTPUT,
  /**
   * Storage resets the connection creating the committer's first manifest: the commit never reaches
   * the catalog; the run stops with the error and a re-commit finishes the job.
   */
  STORAGE_COMMIT_MANIFEST;

  /** NONE a quarter of the time, as on a healthy day; the faults share the rest. */
  static SoakFault draw(Random random) {
    if (random.nextInt(4) == 0) {
      return NONE;
    }
    SoakFault[] faults = values();
    return faults[1 + random.nextInt(faults.length - 1)];
  }

  boolean catalog() {
    return this == CATALOG_LANDED_ANSWER_LOST || this == CATALOG_DID_NOT_LAND;
  }
}
