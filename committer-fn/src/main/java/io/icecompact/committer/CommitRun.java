package io.icecompact.committer;

import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * One run of the committer for one job: what it works on (plan, options, table, work location) and
 * what it has learnt so far (how each group ended, the snapshots committed, the problems the
 * verification found, the next free commit index). The stages of {@link JobCommitter} read and
 * extend it in turn.
 */
final class CommitRun {
  private final JobPlan plan;
  private final RewriteOptions options;
  private final Table table;
  private final JobStore store;
  private final WorkLocation work;
  private final GroupLedger ledger;
  private final ResultValidator.Validated validated;
  private final List<String> problems = new ArrayList<>();
  private final Map<Long, Snapshot> committed = new LinkedHashMap<>();
  private final List<CommitAttempt> attempts = new ArrayList<>();
  private final CommitDeadline deadline;
  private int nextCommitIndex;
  private long prepareMillis;
  private boolean stopped;

  CommitRun(
      JobPlan plan,
      RewriteOptions options,
      Table table,
      JobStore store,
      WorkLocation work,
      ResultValidator.Validated validated,
      CommitDeadline deadline) {
    this.plan = plan;
    this.deadline = deadline;
    this.options = options;
    this.table = table;
    this.store = store;
    this.work = work;
    this.validated = validated;
    this.ledger = new GroupLedger(plan, validated.ready());
    validated.failed().forEach(ledger::failed);
  }

  JobPlan plan() {
    return plan;
  }

  RewriteOptions options() {
    return options;
  }

  Table table() {
    return table;
  }

  JobStore store() {
    return store;
  }

  WorkLocation work() {
    return work;
  }

  GroupLedger ledger() {
    return ledger;
  }

  /** Groups whose results passed every check, by index. */
  Map<Integer, ReadyGroup> ready() {
    return validated.ready();
  }

  /** Groups that failed before the commit (worker gave up, unreadable plan or result), with why. */
  Map<Integer, String> failed() {
    return validated.failed();
  }

  List<String> problems() {
    return problems;
  }

  Collection<Snapshot> committedSnapshots() {
    return committed.values();
  }

  /** Records {@code snapshot} as holding {@code groups}, with what its verification found. */
  void committed(Snapshot snapshot, List<ReadyGroup> groups) {
    groups.forEach(group -> ledger.rewritten(group.index(), snapshot.snapshotId()));
    problems.addAll(CommitVerifier.verify(table, snapshot, BatchCommit.expected(groups)));
    committed.put(snapshot.snapshotId(), snapshot);
  }

  /** Every commit attempt so far, in order; {@link WatchedOperations} adds to it. */
  List<CommitAttempt> attempts() {
    return attempts;
  }

  /**
   * Time the commits spent before their first attempts ({@code RewriteFiles.apply}), in
   * milliseconds.
   */
  long prepareMillis() {
    return prepareMillis;
  }

  void prepared(long millis) {
    prepareMillis += millis;
  }

  CommitDeadline deadline() {
    return deadline;
  }

  int nextCommitIndex() {
    return nextCommitIndex;
  }

  void nextCommitIndex(int index) {
    this.nextCommitIndex = index;
  }

  /** Whether a commit ended in a way that stops the job's later commits. */
  boolean stopped() {
    return stopped;
  }

  void stop() {
    this.stopped = true;
  }

  String logPrefix() {
    return "[" + plan.table() + " " + plan.jobId() + " committer]";
  }
}
