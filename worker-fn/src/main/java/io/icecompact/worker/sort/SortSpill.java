package io.icecompact.worker.sort;

import java.nio.file.Path;

/**
 * Where and how a group beyond memory is sorted: sorted runs of {@code runRows} rows spilled under
 * {@code directory} ({@link ExternalSortedRows}).
 */
public record SortSpill(Path directory, long runRows) {
  public SortSpill {
    if (runRows < 1) {
      throw new IllegalArgumentException("runRows must be >= 1, got " + runRows);
    }
  }

  /** What an external sort spilled: its runs and their bytes. */
  public record Spilled(int runs, long bytes) {
    public static final Spilled NONE = new Spilled(0, 0);

    public Spilled plus(Spilled other) {
      return new Spilled(runs + other.runs, bytes + other.bytes);
    }
  }
}
