package io.icecompact.care;

import io.icecompact.core.policy.CareStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Removes delete files that apply to no live data file (v2 and later), in one commit that changes
 * no row. Why a v2 table needs it, as measured (docs/fleet.md, "Delete cleanup (v2)"): a data
 * rewrite with {@code use-starting-sequence-number} (the default) gives its output the sequence
 * number it started from, so the position deletes of the files it replaced still "apply" by number;
 * Iceberg's own dangling-delete removal keeps them and they stay listed (60 of 60 after a full
 * rewrite) until a {@code rewrite_position_delete_files} with rewrite-all removes them (60 to 0).
 *
 * <p>A delete file is removed only when it provably changes no live row, decided from the manifests
 * alone (no delete file is read):
 *
 * <ul>
 *   <li>a position delete (or deletion vector) that names exactly one data file, by its {@code
 *       referenced_data_file} or by equal {@code file_path} bounds: removed when that file is not
 *       live (exact);
 *   <li>any other position delete (partition-scoped: it may name several files): kept while a live
 *       data file's location lies within its {@code file_path} bounds, removed when none does;
 *       without bounds (Iceberg 1.4 and later keep them only for a delete of one data file) kept
 *       while its partition (its spec's, or the whole table for an unpartitioned spec) has a live
 *       data file it could name: one whose file sequence number is not above the delete's (a file
 *       committed later, such as a compaction's output, has a name the delete cannot hold).
 *       Conservative: it may name only removed files and still be kept, which is always safe;
 *       removing one that applies would bring deleted rows back. A live file is matched by
 *       location, scheme and slashes aside, in any partition and at any sequence number;
 *   <li>an equality delete when no live data file in its scope (its partition, or the whole table
 *       for an unpartitioned delete) has a lower data sequence number.
 * </ul>
 *
 * <p>Why metadata only: reading position delete files takes the Parquet reader and its Hadoop set
 * (51 MB unzipped), which would put the care jar over its Lambda size budget (docs/deploy.md,
 * "Artifacts"). What it costs is small: Spark writes file-scoped position deletes by default since
 * Iceberg 1.8 (apache/iceberg #11478), and format v3 writes deletion vectors, both exact here; only
 * partition-scoped deletes (other writers, {@code write.delete.granularity=partition}) are decided
 * conservatively.
 *
 * <p>The commit is a {@code RowDelta} that only removes delete files, validated from the snapshot
 * the decision was made on: any data file committed since fails it (and a rollback past that
 * snapshot fails Iceberg's history check), and the step decides again from the new snapshot, up to
 * {@code attempts} times. The files themselves stay until snapshot expiry deletes them: older
 * snapshots still reach them.
 */
public final class DeleteCleanupStep implements TableCareStep<DeleteCleanupStep.Report> {
  public static final String NAME = CareStep.DELETE_CLEANUP.propertyName();

  private static final int FILE_PATH_ID = MetadataColumns.DELETE_FILE_PATH.fieldId();

  private final int attempts;
  private final Consumer<Table> beforeCommit;

  public DeleteCleanupStep() {
    this(3, table -> {});
  }

  /**
   * @param attempts how many times to decide and commit when concurrent commits fail validation
   * @param beforeCommit called between the decision and the commit (tests commit concurrently here)
   */
  public DeleteCleanupStep(int attempts, Consumer<Table> beforeCommit) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
    }
    this.attempts = attempts;
    this.beforeCommit = beforeCommit;
  }

  /**
   * Delete files counted from the current snapshot's manifests before and after.
   *
   * @param removed delete files the committed snapshot removed, read back from it (bytes: their
   *     sizes)
   * @param keptMayApply partition-scoped position delete files kept because a live data file lies
   *     within their {@code file_path} bounds, or without bounds in their partition (they may name
   *     only removed files: not read, kept to be safe)
   * @param attempts decisions made (more than one when a concurrent commit failed the validation)
   * @param snapshotId the cleanup's snapshot, or null when nothing was committed
   * @param reason what happened
   * @param problems the snapshot removed something not decided, kept something decided, or changed
   *     data
   */
  public record Report(
      int deleteFilesBefore,
      int deleteFilesAfter,
      int positionDeleteFilesBefore,
      int positionDeleteFilesAfter,
      int equalityDeleteFilesBefore,
      int equalityDeleteFilesAfter,
      RemovedFiles removed,
      int keptMayApply,
      int attempts,
      Long snapshotId,
      String reason,
      List<String> problems)
      implements CareReport {
    @Override
    public String summary() {
      return String.format(
          "delete files %d -> %d: %s%s",
          deleteFilesBefore,
          deleteFilesAfter,
          reason,
          keptMayApply == 0
              ? ""
              : String.format(
                  " (%d partition-scoped position deletes kept: may apply)", keptMayApply));
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * What {@link #run} would remove now, decided the same way from the current snapshot; commits
   * nothing.
   */
  @Override
  public Report preview(Table table) {
    table.refresh();
    return attempt(table, 1, true);
  }

  @Override
  public Report run(Table table) {
    ValidationException last = null;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      table.refresh();
      try {
        return attempt(table, attempt, false);
      } catch (ValidationException e) {
        last = e; // a concurrent commit: decide again from the new snapshot
      }
    }
    throw last;
  }

  private Report attempt(Table table, int attempt, boolean preview) {
    Snapshot snapshot = table.currentSnapshot();
    int formatVersion = TableUtil.formatVersion(table);
    if (snapshot == null || formatVersion < 2) {
      return new Report(
          0,
          0,
          0,
          0,
          0,
          0,
          RemovedFiles.NONE,
          0,
          attempt,
          null,
          snapshot == null ? "the table has no snapshot" : "a v1 table has no delete files",
          List.of());
    }
    LiveData live = LiveData.of(table, snapshot);
    List<DeleteFile> deletes = liveDeletes(table, snapshot);
    Map<String, DeleteFile> removable = new LinkedHashMap<>();
    int keptMayApply = 0;
    for (DeleteFile delete : deletes) {
      Decision decision =
          delete.content() == FileContent.EQUALITY_DELETES
              ? equality(table, live, delete)
              : position(table, live, delete);
      if (decision == Decision.REMOVE) {
        removable.putIfAbsent(key(delete), delete);
      } else if (decision == Decision.KEEP_MAY_APPLY) {
        keptMayApply++;
      }
    }
    Counts before = Counts.of(deletes);
    if (removable.isEmpty()) {
      return new Report(
          before.all,
          before.all,
          before.position,
          before.position,
          before.equality,
          before.equality,
          RemovedFiles.NONE,
          keptMayApply,
          attempt,
          null,
          "no delete file applies to nothing",
          List.of());
    }
    if (preview) {
      List<DeleteFile> left =
          deletes.stream().filter(delete -> !removable.containsKey(key(delete))).toList();
      Counts after = Counts.of(left);
      long bytes = removable.values().stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
      return new Report(
          before.all,
          after.all,
          before.position,
          after.position,
          before.equality,
          after.equality,
          RemovedFiles.of(new ArrayList<>(removable.keySet()), bytes),
          keptMayApply,
          attempt,
          null,
          String.format(
              "would remove %d delete files that apply to no live data file", removable.size()),
          List.of());
    }
    RowDelta delta =
        table
            .newRowDelta()
            .validateFromSnapshot(snapshot.snapshotId())
            .conflictDetectionFilter(Expressions.alwaysTrue())
            .validateNoConflictingDataFiles();
    removable.values().forEach(delta::removeDeletes);
    beforeCommit.accept(table);
    delta.commit();

    table.refresh();
    Snapshot committed = table.currentSnapshot();
    List<String> problems = new ArrayList<>();
    Map<String, DeleteFile> removedByCommit = new LinkedHashMap<>();
    SnapshotChanges.builderFor(table)
        .snapshot(committed)
        .build()
        .removedDeleteFiles()
        .forEach(file -> removedByCommit.put(key(file), file));
    Set<String> notRemoved = new TreeSet<>(removable.keySet());
    notRemoved.removeAll(removedByCommit.keySet());
    notRemoved.forEach(
        file -> problems.add("snapshot " + committed.snapshotId() + " did not remove " + file));
    removedByCommit.keySet().stream()
        .filter(file -> !removable.containsKey(file))
        .forEach(
            file ->
                problems.add(
                    "snapshot " + committed.snapshotId() + " removed " + file + ", not decided"));
    for (String property :
        List.of(
            SnapshotSummary.ADDED_FILES_PROP,
            SnapshotSummary.DELETED_FILES_PROP,
            SnapshotSummary.ADDED_DELETE_FILES_PROP)) {
      String value = committed.summary().get(property);
      if (value != null && Long.parseLong(value) != 0) {
        problems.add("snapshot " + committed.snapshotId() + " has " + property + "=" + value);
      }
    }
    Counts after = Counts.of(liveDeletes(table, committed));
    long bytes = removedByCommit.values().stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
    return new Report(
        before.all,
        after.all,
        before.position,
        after.position,
        before.equality,
        after.equality,
        RemovedFiles.of(new ArrayList<>(removedByCommit.keySet()), bytes),
        keptMayApply,
        attempt,
        committed.snapshotId(),
        String.format(
            "removed %d delete files that apply to no live data file", removedByCommit.size()),
        problems);
  }

  private enum Decision {
    KEEP,
    KEEP_MAY_APPLY,
    REMOVE
  }

  private static Decision equality(Table table, LiveData live, DeleteFile delete) {
    Long sequence = delete.dataSequenceNumber();
    if (sequence == null) {
      return Decision.KEEP;
    }
    boolean global = table.specs().get(delete.specId()).isUnpartitioned();
    long lowest =
        global
            ? live.lowestSequence
            : live.lowestSequence(partitionKey(table, delete.specId(), delete.partition()));
    return lowest < sequence ? Decision.KEEP : Decision.REMOVE;
  }

  private static Decision position(Table table, LiveData live, DeleteFile delete) {
    String referenced =
        ContentFileUtil.referencedDataFileLocation(delete); // referenced_data_file, or equal bounds
    if (referenced != null) {
      return live.contains(referenced) ? Decision.KEEP : Decision.REMOVE;
    }
    String lower = bound(delete.lowerBounds());
    String upper = bound(delete.upperBounds());
    // A position delete names files that existed when it was written: a data file a later commit
    // added (a
    // compaction's output, an append) has a new name it cannot hold. So only live files whose file
    // sequence
    // number is not above the delete's can be named, whatever the data sequence number they
    // inherited.
    long written =
        delete.fileSequenceNumber() == null ? Long.MAX_VALUE : delete.fileSequenceNumber();
    boolean couldApply =
        lower != null && upper != null
            ? live.anyWithin(lower, upper)
            : table.specs().get(delete.specId()).isUnpartitioned()
                ? live.lowestFileSequence <= written
                : live.lowestFileSequence(partitionKey(table, delete.specId(), delete.partition()))
                    <= written;
    return couldApply ? Decision.KEEP_MAY_APPLY : Decision.REMOVE;
  }

  private static String bound(Map<Integer, ByteBuffer> bounds) {
    ByteBuffer value = bounds == null ? null : bounds.get(FILE_PATH_ID);
    return value == null
        ? null
        : Conversions.<CharSequence>fromByteBuffer(Types.StringType.get(), value).toString();
  }

  private static List<DeleteFile> liveDeletes(Table table, Snapshot snapshot) {
    List<DeleteFile> deletes = new ArrayList<>();
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (CloseableIterable<DeleteFile> files =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        files.forEach(file -> deletes.add(copyWithBounds(file)));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    return deletes;
  }

  /** Manifest readers reuse their objects: keep the bounds of the file_path column only. */
  private static DeleteFile copyWithBounds(DeleteFile file) {
    return file.copyWithStats(Set.of(FILE_PATH_ID));
  }

  private static String key(DeleteFile file) {
    return file.contentOffset() == null
        ? file.location()
        : file.location() + "@" + file.contentOffset();
  }

  private static String partitionKey(Table table, int specId, StructLike partition) {
    return specId + "/" + table.specs().get(specId).partitionToPath(partition);
  }

  private record Counts(int all, int position, int equality) {
    static Counts of(List<DeleteFile> deletes) {
      Set<String> all = new HashSet<>();
      Set<String> position = new HashSet<>();
      Set<String> equality = new HashSet<>();
      for (DeleteFile delete : deletes) {
        all.add(key(delete));
        (delete.content() == FileContent.EQUALITY_DELETES ? equality : position).add(key(delete));
      }
      return new Counts(all.size(), position.size(), equality.size());
    }
  }

  /**
   * The snapshot's live data files: locations (raw and normalized), paths as written by root (for
   * bounds), lowest data sequence number by partition.
   */
  private static final class LiveData {
    private final Set<String> normalized = new HashSet<>();
    private final Set<String> raw = new HashSet<>();
    private final Map<String, TreeSet<String>> pathsByRoot = new HashMap<>();
    private boolean irregularPath;
    private final Map<String, Long> lowestByPartition = new HashMap<>();
    private long lowestSequence = Long.MAX_VALUE;
    private final Map<String, Long> lowestFileByPartition = new HashMap<>();
    private long lowestFileSequence = Long.MAX_VALUE;

    static LiveData of(Table table, Snapshot snapshot) {
      LiveData live = new LiveData();
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        try (CloseableIterable<DataFile> files =
            ManifestFiles.read(manifest, table.io(), table.specs())) {
          for (DataFile file : files) {
            live.raw.add(file.location());
            FileLocations.Rooted rooted = FileLocations.rooted(file.location());
            live.pathsByRoot
                .computeIfAbsent(
                    rooted.root(), root -> new TreeSet<>(Comparators.charSequences()::compare))
                .add(rooted.path());
            live.irregularPath |= !rooted.regular();
            live.normalized.add(FileLocations.normalized(file.location()));
            long sequence = file.dataSequenceNumber() == null ? 0 : file.dataSequenceNumber();
            live.lowestByPartition.merge(
                partitionKey(table, file.specId(), file.partition()), sequence, Math::min);
            live.lowestSequence = Math.min(live.lowestSequence, sequence);
            // unknown (v1 manifests): as old as can be, so that no delete is dropped for it
            long added = file.fileSequenceNumber() == null ? 0 : file.fileSequenceNumber();
            live.lowestFileByPartition.merge(
                partitionKey(table, file.specId(), file.partition()), added, Math::min);
            live.lowestFileSequence = Math.min(live.lowestFileSequence, added);
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
      }
      return live;
    }

    boolean contains(String location) {
      return raw.contains(location) || normalized.contains(FileLocations.normalized(location));
    }

    long lowestFileSequence(String partitionKey) {
      return lowestFileByPartition.getOrDefault(partitionKey, Long.MAX_VALUE);
    }

    long lowestSequence(String partitionKey) {
      return lowestByPartition.getOrDefault(partitionKey, Long.MAX_VALUE);
    }

    /**
     * Whether a live file could be named by a position delete whose {@code file_path} bounds are
     * {@code [lower, upper]} (Iceberg's string order). Every name between two bounds starts with
     * their common prefix, so when both are written with the same root ({@code s3a://b}, {@code
     * file:///}), each name is that root and a path between the bounds' paths; a live file written
     * with another form of the same root ({@code s3://b}, {@code file:/}) is compared by its path.
     * Bounds of two roots and paths not written in normal form (repeated or trailing slashes, which
     * matching by normalized location ignores) answer yes.
     */
    boolean anyWithin(String lower, String upper) {
      if (irregularPath) {
        return true;
      }
      FileLocations.Rooted low = FileLocations.rooted(lower);
      FileLocations.Rooted high = FileLocations.rooted(upper);
      String lowRoot = lower.substring(0, lower.length() - low.path().length());
      String highRoot = upper.substring(0, upper.length() - high.path().length());
      if (!lowRoot.equals(highRoot) || !low.regular() || !high.regular()) {
        return true;
      }
      TreeSet<String> paths = pathsByRoot.get(low.root());
      String first = paths == null ? null : paths.ceiling(low.path());
      return first != null && Comparators.charSequences().compare(first, high.path()) <= 0;
    }
  }
}
