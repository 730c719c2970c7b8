package io.icecompact.care;

import io.icecompact.core.policy.CareStep;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * Expires snapshots with Iceberg core's {@code ExpireSnapshots} and the retention the table's own
 * properties set, as Iceberg defines them: {@code history.expire.max-snapshot-age-ms} (default 5
 * days), {@code history.expire.min-snapshots-to-keep} (default 1), {@code
 * history.expire.max-ref-age-ms} and each branch's or tag's own retention. Nothing here overrides
 * them, so a table keeps what its owner configured. Then the files only expired snapshots reached
 * are deleted: those the metadata reached before and the remaining snapshots do not ({@link
 * Unreachable}).
 *
 * <p>Two guards Iceberg's cleanup lacks: on a table with {@code gc.enabled=false} the step refuses
 * before Iceberg is called; and a file that another table of the catalog reaches ({@link
 * SharingTables}: a registered copy, a shared {@code write.data.path}) is kept and counted.
 *
 * <p>The report is read back: expired snapshots are those the refreshed metadata no longer lists,
 * removed refs those it no longer names (a tag past {@code max-ref-age-ms} goes with no snapshot
 * expired), and a deleted file counts only when storage no longer has it and no remaining snapshot
 * reaches it. {@link #preview} runs the same expiry on a copy of the metadata in memory and deletes
 * nothing.
 */
public final class ExpireSnapshotsStep implements TableCareStep<ExpireSnapshotsStep.Report> {
  public static final String NAME = CareStep.EXPIRE_SNAPSHOTS.propertyName();
  private static final String ICEBERG_REFUSAL =
      "Iceberg: \"Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)\"";

  private final SharingLookup lookup;
  private final String tableName;

  /**
   * @param catalog the table's catalog, whose every table is checked for files this one shares
   * @param tableName the table's identifier in it
   */
  public ExpireSnapshotsStep(Catalog catalog, String tableName) {
    this(SharingLookup.of(catalog), tableName);
  }

  /**
   * @param lookup the table's catalog, how it is listed and the deployment's locations ({@link
   *     SharingTables})
   * @param tableName the table's identifier in it
   */
  public ExpireSnapshotsStep(SharingLookup lookup, String tableName) {
    this.lookup = lookup;
    this.tableName = tableName;
  }

  /**
   * @param dryRun true: nothing was committed or deleted, the figures say what would be
   * @param snapshotsBefore snapshots listed before
   * @param snapshotsAfter snapshots listed after (re-read)
   * @param expiredSnapshotIds snapshots no longer listed (at most {@link RemovedFiles#SAMPLE})
   * @param refsRemoved branches and tags no longer named, e.g. {@code tag release-1}
   * @param filesDeleted files deleted that storage confirms are gone, bytes as the metadata
   *     recorded them
   * @param sharedFilesKept files Iceberg would have deleted that another table reaches, each with
   *     its table
   * @param sharing which other tables share the table's folders
   * @param catalogChecked how many of the catalog's tables were listed and read, and those not
   *     checked with why
   * @param problems a file deleted that still exists or that a remaining snapshot reaches
   */
  public record Report(
      boolean dryRun,
      int snapshotsBefore,
      int snapshotsAfter,
      int snapshotsExpired,
      List<Long> expiredSnapshotIds,
      List<String> refsRemoved,
      RemovedFiles filesDeleted,
      RemovedFiles sharedFilesKept,
      String sharing,
      SharingTables.Coverage catalogChecked,
      List<String> problems)
      implements CareReport {
    @Override
    public String summary() {
      String refs =
          refsRemoved.isEmpty() ? "" : ", refs removed: " + String.join(", ", refsRemoved);
      String shared =
          sharedFilesKept.count() == 0
              ? ""
              : String.format(", %d files kept that other tables reach", sharedFilesKept.count());
      shared += SharingTables.notCheckedNote(catalogChecked);
      return dryRun
          ? String.format(
              "would expire %d of %d snapshots%s and delete %d files (%d bytes)%s",
              snapshotsExpired,
              snapshotsBefore,
              refs.replace("refs removed", "refs removed with them"),
              filesDeleted.count(),
              filesDeleted.bytes(),
              shared)
          : String.format(
              "expired %d of %d snapshots%s, %d files deleted (%d bytes)%s",
              snapshotsExpired,
              snapshotsBefore,
              refs,
              filesDeleted.count(),
              filesDeleted.bytes(),
              shared);
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Report run(Table table) {
    table.refresh();
    GcEnabled.require(table, tableName, NAME, ICEBERG_REFUSAL);
    SharingTables sharing = SharingTables.find(lookup, tableName, table, NAME);
    Set<Long> before = snapshotIds(table);
    Map<String, SnapshotRef> refsBefore = Map.copyOf(table.refs());
    ReachableFiles reachableBefore = ReachableFiles.of(table);
    table.expireSnapshots().cleanExpiredFiles(false).commit();
    table.refresh();
    Set<Long> after = snapshotIds(table);
    List<Long> expired = before.stream().filter(id -> !after.contains(id)).sorted().toList();
    ReachableFiles remaining = ReachableFiles.of(table);
    sharing.refresh(lookup.catalog()); // a sharer's commit since protects its files too
    Unreachable unreachable = Unreachable.of(reachableBefore, remaining, sharing);

    List<String> problems = new ArrayList<>();
    List<String> gone = new ArrayList<>();
    long bytes = 0;
    for (String location : unreachable.deletable()) {
      table.io().deleteFile(location);
      if (exists(table, location)) {
        problems.add("deleted " + location + " but it still exists");
      } else {
        gone.add(location);
        bytes += Math.max(0, reachableBefore.size(location));
      }
    }
    // read back: nothing deleted is reachable now (the remaining snapshots did not reach it; a
    // commit since
    // adds its snapshots, and only those are read)
    table.refresh();
    remaining.addNewSnapshots(table);
    gone.stream()
        .filter(remaining::contains)
        .forEach(
            location ->
                problems.add("deleted " + location + ", which a remaining snapshot reaches"));
    return new Report(
        false,
        before.size(),
        after.size(),
        expired.size(),
        expired.subList(0, Math.min(RemovedFiles.SAMPLE, expired.size())),
        refsRemoved(refsBefore, table.refs()),
        RemovedFiles.of(gone, bytes),
        RemovedFiles.of(unreachable.shared(), 0),
        sharing.describeSharers(),
        sharing.coverage(),
        problems);
  }

  /**
   * What {@link #run} would do now: Iceberg's own expiry applied to a copy of the metadata held in
   * memory ({@link PreviewOperations}), and the same reachability difference {@link #run} deletes.
   * Commits and deletes nothing; refuses as {@link #run} does.
   */
  @Override
  public Report preview(Table table) {
    table.refresh();
    GcEnabled.require(table, tableName, NAME, ICEBERG_REFUSAL);
    SharingTables sharing = SharingTables.find(lookup, tableName, table, NAME);
    TableMetadata current = ((HasTableOperations) table).operations().current();
    PreviewOperations operations = new PreviewOperations(current, table.io());
    Table copy = new BaseTable(operations, table.name());
    copy.expireSnapshots().cleanExpiredFiles(false).commit();
    ReachableFiles before = ReachableFiles.of(table);
    Unreachable unreachable = Unreachable.of(before, ReachableFiles.of(copy), sharing);
    long bytes =
        unreachable.deletable().stream()
            .mapToLong(location -> Math.max(0, before.size(location)))
            .sum();
    Set<Long> beforeIds = snapshotIds(table);
    Set<Long> afterIds = snapshotIds(copy);
    List<Long> expired = beforeIds.stream().filter(id -> !afterIds.contains(id)).sorted().toList();
    return new Report(
        true,
        beforeIds.size(),
        afterIds.size(),
        expired.size(),
        expired.subList(0, Math.min(RemovedFiles.SAMPLE, expired.size())),
        refsRemoved(table.refs(), copy.refs()),
        RemovedFiles.of(unreachable.deletable(), bytes),
        RemovedFiles.of(unreachable.shared(), 0),
        sharing.describeSharers(),
        sharing.coverage(),
        List.of());
  }

  /**
   * The files the snapshots before reached and the remaining ones do not: those other tables reach
   * (kept, with the table) and the rest (deleted). Metadata files are never among them: the
   * metadata log keeps them, as Iceberg's expiry does. By reachability, as Iceberg's {@code
   * ReachableFileCleanup} and Spark's {@code expire_snapshots} decide, not Iceberg's incremental
   * cleanup, which leaves the files a retained rewrite replaced until that rewrite's snapshot
   * expires too, so its deletes could not be previewed.
   */
  private record Unreachable(List<String> deletable, List<String> shared) {
    static Unreachable of(ReachableFiles before, ReachableFiles remaining, SharingTables sharing) {
      List<String> deletable = new ArrayList<>();
      List<String> shared = new ArrayList<>();
      for (String location : new TreeSet<>(before.locations())) {
        if (remaining.contains(location)
            || remaining.samePathAs(location) != null
            || location.endsWith(".metadata.json")
            || location.endsWith("version-hint.text")) {
          continue;
        }
        String sharer = sharing.reachedBy(location);
        if (sharer != null) {
          shared.add(location + " (reached by " + sharer + ")");
        } else {
          deletable.add(location);
        }
      }
      return new Unreachable(deletable, shared);
    }
  }

  /**
   * Refs of {@code before} that {@code after} no longer names, as {@code tag NAME} / {@code branch
   * NAME}.
   */
  static List<String> refsRemoved(Map<String, SnapshotRef> before, Map<String, SnapshotRef> after) {
    List<String> removed = new ArrayList<>();
    new TreeMap<>(before)
        .forEach(
            (name, ref) -> {
              if (!after.containsKey(name)) {
                removed.add((ref.isBranch() ? "branch " : "tag ") + name);
              }
            });
    return removed;
  }

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      ids.add(snapshot.snapshotId());
    }
    return ids;
  }

  static boolean exists(Table table, String location) {
    try {
      return table.io().newInputFile(location).exists();
    } catch (NotFoundException e) {
      return false;
    }
  }
}
