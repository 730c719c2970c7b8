package io.icecompact.cli.history;

import io.icecompact.core.error.InvalidJobInputException;

/** Thrown by {@code status} when the history it reads has no job of the given id for the table. */
public final class JobNotFoundException extends InvalidJobInputException {
  public JobNotFoundException(String jobId, String table, String where) {
    super("Job " + jobId + " of " + table + " not found in " + where);
  }
}
