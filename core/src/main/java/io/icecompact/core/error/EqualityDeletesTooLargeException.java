package io.icecompact.core.error;

import java.util.Locale;

/**
 * A group's equality deletes hold more keys than a worker's heap allows their index, judged from
 * the delete files' record counts before any is read: refused with the figures, rather than ending
 * the worker with an {@code OutOfMemoryError}. Not retried: the same deletes need the same memory.
 */
public final class EqualityDeletesTooLargeException extends ApplicationException {
  public EqualityDeletesTooLargeException(
      int groupIndex, long deleteRecords, long indexBytes, long maxBytes) {
    super(
        String.format(
            Locale.ROOT,
            "Group %d's equality deletes hold %,d keys, an index of ~%s, more than the %s a worker gives"
                + " them (a quarter of its heap); raise the heap (%s embedded, %s deployed)",
            groupIndex,
            deleteRecords,
            size(indexBytes),
            size(maxBytes),
            WorkerOutOfMemoryException.EMBEDDED_SETTING,
            WorkerOutOfMemoryException.LAMBDA_SETTING));
  }

  private static String size(long bytes) {
    return bytes >= 10L << 20
        ? String.format(Locale.ROOT, "%,d MB", bytes >> 20)
        : String.format(Locale.ROOT, "%,d KB", (bytes + 1023) >> 10);
  }
}
