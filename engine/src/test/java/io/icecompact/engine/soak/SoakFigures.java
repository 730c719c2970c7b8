package io.icecompact.engine.soak;

import java.util.Map;
import java.util.TreeMap;

/** What a soak run did, counted by kind, printed at its end (and after a failure, up to it). */
final class SoakFigures {
  private final Map<String, Integer> drawn = new TreeMap<>();
  private final Map<String, Integer> fired = new TreeMap<>();
  private final Map<String, Integer> statuses = new TreeMap<>();
  private final Map<String, Integer> groups = new TreeMap<>();
  private final Map<String, Integer> writes = new TreeMap<>();
  private int jobs;
  private int recommits;

  void job() {
    jobs++;
  }

  void drawn(SoakFault fault) {
    drawn.merge(fault.name(), 1, Integer::sum);
  }

  void fired(SoakFault fault) {
    fired.merge(fault.name(), 1, Integer::sum);
  }

  void status(String status) {
    statuses.merge(status, 1, Integer::sum);
  }

  void group(String outcome) {
    groups.merge(outcome, 1, Integer::sum);
  }

  void write(SoakWriter.Change change) {
    writes.merge(change.name(), 1, Integer::sum);
  }

  void recommit() {
    recommits++;
  }

  String report(long seed, long millis) {
    return String.format(
        "soak seed=%d: %d jobs in %.1f s (%d re-commits)%n  faults drawn %s%n  faults fired %s%n"
            + "  job statuses %s%n  group outcomes %s%n  writer commits %s",
        seed, jobs, millis / 1000.0, recommits, drawn, fired, statuses, groups, writes);
  }
}
