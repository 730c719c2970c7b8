package io.icecompact.cli.history;

import java.util.List;
import java.util.Optional;

/**
 * Where {@code history} and {@code status} read past jobs: the deployed pipeline's job log ({@link
 * JobLogHistory}) or, for jobs run on this machine, their work locations ({@link
 * WorkLocationHistory}).
 */
public interface JobHistory extends AutoCloseable {

  /** The {@code limit} most recently started jobs of {@code table}, newest first. */
  List<JobRecord> recent(String table, int limit);

  /**
   * Job {@code jobId} of {@code table}, with its whole result when this source can read it.
   *
   * @throws io.icecompact.core.error.JobOfAnotherTableException when the job is another table's
   * @throws io.icecompact.core.error.StoredDocumentUnreadableException when its result is stored
   *     but cannot be parsed
   */
  Optional<JobRecord> find(String table, String jobId);

  /**
   * Where this source looks for {@code table}'s jobs, for messages: "lease table X", "work
   * locations under Y".
   */
  String where(String table);

  @Override
  void close();
}
