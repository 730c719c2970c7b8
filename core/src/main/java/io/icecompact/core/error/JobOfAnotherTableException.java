package io.icecompact.core.error;

/**
 * Thrown by {@code recommit} and {@code status} when the job id names a job of another table.
 * Tables registered on one location (a copy made with {@code registerTable}) share its default work
 * locations, so a job folder found there may belong to either; the job's stored plan or result
 * names the table it was planned for, and only that table's jobs are its own. The message names
 * both tables and the document that says so.
 */
public final class JobOfAnotherTableException extends InvalidJobInputException {
  public JobOfAnotherTableException(String jobId, String owner, String given, String document) {
    super(
        String.format(
            "Job %s belongs to %s, not %s: %s names %s (the two tables share one location)",
            jobId, owner, given, document, owner));
  }
}
