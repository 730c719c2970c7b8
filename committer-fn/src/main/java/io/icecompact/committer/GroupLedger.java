package io.icecompact.committer;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PlannedGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** How each planned group ended so far; one entry per group, decided once. */
final class GroupLedger {
  /** Not a final outcome: a group's commit state that nobody can know yet. */
  static final String UNKNOWN = "UNKNOWN";

  private record Entry(String status, String reason, Long snapshotId) {}

  private final JobPlan plan;
  private final Map<Integer, Entry> entries = new TreeMap<>();
  private final Map<Integer, ReadyGroup> ready;

  GroupLedger(JobPlan plan, Map<Integer, ReadyGroup> ready) {
    this.plan = plan;
    this.ready = ready;
  }

  void rewritten(int index, long snapshotId) {
    entries.put(index, new Entry(GroupOutcome.Status.REWRITTEN.name(), null, snapshotId));
  }

  void failed(int index, String reason) {
    entries.put(index, new Entry(GroupOutcome.Status.FAILED.name(), reason, null));
  }

  void conflicted(int index, String reason) {
    entries.put(index, new Entry(GroupOutcome.Status.CONFLICTED.name(), reason, null));
  }

  void contended(int index, String reason) {
    entries.put(index, new Entry(GroupOutcome.Status.CONTENDED.name(), reason, null));
  }

  void notCommitted(int index, String reason) {
    entries.put(index, new Entry(GroupOutcome.Status.NOT_COMMITTED.name(), reason, null));
  }

  void unknown(int index, String reason) {
    entries.put(index, new Entry(UNKNOWN, reason, null));
  }

  boolean isRewritten(int index) {
    Entry entry = entries.get(index);
    return entry != null && entry.status().equals(GroupOutcome.Status.REWRITTEN.name());
  }

  boolean decided(int index) {
    return entries.containsKey(index);
  }

  long count(GroupOutcome.Status status) {
    return entries.values().stream().filter(e -> e.status().equals(status.name())).count();
  }

  boolean anyUnknown() {
    return entries.values().stream().anyMatch(e -> e.status().equals(UNKNOWN));
  }

  int inputFiles(GroupOutcome.Status... statuses) {
    int files = 0;
    for (var entry : entries.entrySet()) {
      for (GroupOutcome.Status status : statuses) {
        if (entry.getValue().status().equals(status.name())) {
          files += plan.group(entry.getKey()).inputFiles();
        }
      }
    }
    return files;
  }

  long inputBytes(GroupOutcome.Status status) {
    return entries.entrySet().stream()
        .filter(e -> e.getValue().status().equals(status.name()))
        .mapToLong(e -> plan.group(e.getKey()).inputBytes())
        .sum();
  }

  /** First reason given for a group that was not rewritten, for the job's summary line. */
  String firstProblem() {
    return entries.entrySet().stream()
        .filter(e -> e.getValue().reason() != null)
        .map(e -> "group " + e.getKey() + ": " + e.getValue().reason())
        .findFirst()
        .orElse(null);
  }

  List<GroupOutcome> outcomes() {
    List<GroupOutcome> outcomes = new ArrayList<>();
    for (PlannedGroup group : plan.groups()) {
      Entry entry = entries.get(group.index());
      ReadyGroup done = ready.get(group.index());
      boolean rewritten =
          entry != null && entry.status().equals(GroupOutcome.Status.REWRITTEN.name());
      GroupOutcome.Status status =
          entry == null || entry.status().equals(UNKNOWN)
              ? GroupOutcome.Status.NOT_COMMITTED
              : GroupOutcome.Status.valueOf(entry.status());
      String reason =
          entry == null
              ? "not decided"
              : entry.status().equals(UNKNOWN)
                  ? "commit state unknown: " + entry.reason()
                  : entry.reason();
      outcomes.add(
          new GroupOutcome(
              group.index(),
              group.partition(),
              status,
              reason,
              group.inputFiles(),
              group.inputBytes(),
              rewritten && done != null ? done.outputs().size() : 0,
              rewritten && done != null ? done.result().outputRows() : 0,
              entry == null ? null : entry.snapshotId(),
              done != null ? done.result().rewritePath() : null,
              done != null ? done.result().rewritePathReason() : null,
              done != null ? done.result().spilledBytes() : 0));
    }
    return outcomes;
  }
}
