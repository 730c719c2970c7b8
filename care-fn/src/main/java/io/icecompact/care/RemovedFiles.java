package io.icecompact.care;

import java.util.List;

/**
 * Files a care step removed, as storage or metadata confirmed after the fact: how many, their bytes
 * (0 when the step could not know them, e.g. Iceberg's own cleanup), and at most {@link #SAMPLE} of
 * their locations so a report stays small whatever the table's size.
 */
public record RemovedFiles(int count, long bytes, List<String> sample) {
  /** Locations a report names; the count says how many there were. */
  public static final int SAMPLE = 20;

  public static final RemovedFiles NONE = new RemovedFiles(0, 0, List.of());

  public static RemovedFiles of(List<String> locations, long bytes) {
    return new RemovedFiles(
        locations.size(),
        bytes,
        List.copyOf(locations.subList(0, Math.min(SAMPLE, locations.size()))));
  }
}
