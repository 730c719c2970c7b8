package io.icecompact.committer;

/**
 * Checked right before each Iceberg commit of a job. In the serverless pipeline it verifies that
 * this execution still holds the table's lease (owner and fencing token); embedded runs need none.
 * It saves duplicate work only: Iceberg's optimistic commit stays the correctness guard.
 */
@FunctionalInterface
public interface CommitGuard {
  CommitGuard NONE = () -> {};

  /** Throws (an application error) when the commit must not happen. */
  void check();
}
