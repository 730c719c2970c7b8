package io.icecompact.core.error;

import io.icecompact.core.options.RewriteOptions;
import java.util.Locale;
import java.util.Optional;

/**
 * Thrown in place of an {@link OutOfMemoryError} of a worker: the group did not fit in the heap.
 * The message names the error, the maximum heap and the setting that raises it, since the error
 * alone says none of that. Not retried: the same group in the same heap runs out the same way.
 */
public final class WorkerOutOfMemoryException extends ApplicationException {
  /** How to raise the heap of the embedded runner ({@code ./icecompact} reads it). */
  public static final String EMBEDDED_SETTING = "ICECOMPACT_JAVA_OPTS=-Xmx...";

  /**
   * How to raise the heap of the deployed worker (the SAM parameter setting the function's
   * MemorySize).
   */
  public static final String LAMBDA_SETTING =
      "the worker function's MemorySize (the WorkerMemorySize parameter)";

  public WorkerOutOfMemoryException(
      int groupIndex, OutOfMemoryError error, long maxHeapBytes, String setting) {
    super(
        String.format(
            Locale.ROOT,
            "Group %d ran out of memory (OutOfMemoryError: %s) in a max heap of %d MB; raise it with %s, or plan"
                + " smaller groups (%s)",
            groupIndex,
            error.getMessage(),
            maxHeapBytes / (1024 * 1024),
            setting,
            RewriteOptions.MAX_FILE_GROUP_SIZE_BYTES),
        error);
  }

  /**
   * The OutOfMemoryError that {@code failure} is or wraps (a pool of column copies hands it on as a
   * cause); empty when there is none.
   */
  public static Optional<OutOfMemoryError> in(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof OutOfMemoryError error) {
        return Optional.of(error);
      }
    }
    return Optional.empty();
  }
}
