package io.icecompact.committer;

import io.icecompact.core.job.CommitAttempt;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.metrics.LoggingMetricsReporter;

/**
 * The table's operations as Iceberg's {@code SnapshotProducer.commit} drives them, watched: each
 * attempt (Iceberg's retries included) reads the metadata ({@link #refresh}), recomputes the
 * snapshot on it, and swaps ({@link #commit}). Before each swap the job's own check runs on the
 * exact metadata the attempt is based on, so a concurrent commit that lands between two attempts is
 * checked too, and only the snapshots committed since the previous check need reading. Each attempt
 * is timed in its parts.
 *
 * <p>Wrapping the operations, rather than timing around {@code commit()}, is the only way to see
 * Iceberg's own retries: they happen inside it. Keeping the job's retries inside Iceberg's is what
 * keeps them cheap: between its attempts Iceberg keeps the manifests it wrote and filtered, and
 * drops them when it gives up.
 */
final class WatchedOperations implements TableOperations {

  /**
   * Icecompact's check on the metadata an attempt is about to replace; throws to refuse the
   * attempt.
   */
  @FunctionalInterface
  interface BeforeSwap {
    BeforeSwap NONE = base -> {};

    void check(TableMetadata base);

    /**
     * Reads ahead what {@link #check} will need on {@code metadata}, before the attempts; never
     * refuses.
     */
    default void prime(TableMetadata metadata) {}
  }

  private final TableOperations delegate;
  private final int commitIndex;
  private final BeforeSwap beforeSwap;
  private final List<CommitAttempt> attempts;
  private final Map<String, String> retrySettings;
  private Runnable beforeEachRead = () -> {};
  private TableMetadata currentAsRead;
  private TableMetadata currentWithRetrySettings;
  private TableMetadata lastRead;
  private long lastReadStarted;
  private long lastReadEnded;
  private Long lostAtSequenceNumber;
  private Snapshot lastValidated;

  /**
   * @param retrySettings {@code commit.retry.*} properties Iceberg's commit of this operation uses
   *     instead of the table's (see {@link #current})
   */
  WatchedOperations(
      TableOperations delegate,
      int commitIndex,
      BeforeSwap beforeSwap,
      List<CommitAttempt> attempts,
      Map<String, String> retrySettings) {
    this.delegate = delegate;
    this.commitIndex = commitIndex;
    this.beforeSwap = beforeSwap;
    this.attempts = attempts;
    this.retrySettings = Map.copyOf(retrySettings);
  }

  /**
   * Runs {@code hook} before each read of the metadata, which is how each of Iceberg's attempts
   * starts.
   */
  void beforeEachRead(Runnable hook) {
    this.beforeEachRead = hook;
  }

  /**
   * {@code table} with its operations watched, reporting its metrics where the table reports them.
   */
  static Table watched(Table table, WatchedOperations ops) {
    return new BaseTable(
        ops,
        table.name(),
        table instanceof BaseTable base ? base.reporter() : LoggingMetricsReporter.instance());
  }

  static TableOperations operationsOf(Table table) {
    return ((HasTableOperations) table).operations();
  }

  /**
   * The newest snapshot an attempt passed Iceberg's validation and the job's check on (the parent
   * it tried to commit on), or null: a later commit may validate from it instead of from the pinned
   * snapshot.
   */
  Snapshot lastValidated() {
    return lastValidated;
  }

  /**
   * The current metadata with the job's {@code commit.retry.*} settings in place of the table's.
   * Iceberg reads its retry settings once, from the metadata its operation was created on, and has
   * no per-operation setting; this is how one commit of the job retries by its own policy without
   * changing the table. Only those properties differ (same location, schemas, specs, snapshots),
   * and every attempt works on, and swaps from, the metadata {@link #refresh} reads, which is the
   * catalog's own.
   */
  /** The metadata read last. */
  TableMetadata lastRead() {
    return lastRead;
  }

  /**
   * Records that Iceberg validated the operation on the metadata read last ({@code apply()}
   * returned).
   */
  void validatedOnLastRead() {
    if (lastRead != null && lastRead.currentSnapshot() != null) {
      lastValidated = lastRead.currentSnapshot();
    }
  }

  @Override
  public TableMetadata current() {
    TableMetadata metadata = delegate.current();
    if (metadata == null || retrySettings.isEmpty()) {
      return metadata;
    }
    if (metadata != currentAsRead) {
      currentAsRead = metadata;
      currentWithRetrySettings =
          TableMetadata.buildFrom(metadata)
              .setProperties(retrySettings)
              .discardChanges()
              .withMetadataLocation(metadata.metadataFileLocation())
              .build();
    }
    return currentWithRetrySettings;
  }

  @Override
  public TableMetadata refresh() {
    beforeEachRead.run();
    long started = System.nanoTime();
    TableMetadata metadata = delegate.refresh();
    if (lostAtSequenceNumber != null && metadata != null) {
      // what the previous attempt lost to: the commits between its metadata and this one
      CommitAttempt lost = attempts.remove(attempts.size() - 1);
      attempts.add(
          new CommitAttempt(
              lost.commitIndex(),
              lost.attempt(),
              lost.refreshMillis(),
              lost.applyMillis(),
              lost.checkMillis(),
              lost.swapMillis(),
              (int) Math.max(0, metadata.lastSequenceNumber() - lostAtSequenceNumber),
              lost.outcome()));
      lostAtSequenceNumber = null;
    }
    lastRead = metadata;
    lastReadStarted = started;
    lastReadEnded = System.nanoTime();
    return metadata;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    long applied = System.nanoTime();
    boolean readForThis = base == lastRead;
    long refreshNanos = readForThis ? lastReadEnded - lastReadStarted : 0;
    long applyNanos = readForThis ? applied - lastReadEnded : 0;
    int attempt = 1 + (int) attempts.stream().filter(a -> a.commitIndex() == commitIndex).count();
    try {
      beforeSwap.check(base);
    } catch (RuntimeException e) {
      attempts.add(
          new CommitAttempt(
              commitIndex,
              attempt,
              millis(refreshNanos),
              millis(applyNanos),
              millis(System.nanoTime() - applied),
              0,
              0,
              CommitAttempt.Outcome.REFUSED));
      throw e;
    }
    long checked = System.nanoTime();
    lastValidated = base.currentSnapshot();
    CommitAttempt.Outcome outcome = CommitAttempt.Outcome.UNKNOWN;
    try {
      delegate.commit(base, metadata);
      outcome = CommitAttempt.Outcome.WON;
    } catch (CommitFailedException e) {
      outcome = CommitAttempt.Outcome.LOST;
      lostAtSequenceNumber = base.lastSequenceNumber();
      throw e;
    } catch (CommitStateUnknownException e) {
      outcome = CommitAttempt.Outcome.UNKNOWN;
      throw e;
    } finally {
      attempts.add(
          new CommitAttempt(
              commitIndex,
              attempt,
              millis(refreshNanos),
              millis(applyNanos),
              millis(checked - applied),
              millis(System.nanoTime() - checked),
              0,
              outcome));
    }
  }

  private static long millis(long nanos) {
    return Math.round(nanos / 1e6);
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    return delegate.temp(uncommittedMetadata);
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return delegate.requireStrictCleanup();
  }
}
