package io.icecompact.care;

import io.icecompact.care.catalog.CatalogThrottledException;
import io.icecompact.care.catalog.ListedTable;
import io.icecompact.care.catalog.ListingFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The other tables of the catalog whose folders overlap this table's, and every file their metadata
 * reaches. Tables share folders more often than one expects: a table registered from another's
 * metadata ({@code Catalog.registerTable}: one location, two names), a {@code write.data.path} into
 * another table's {@code data/} or into a folder both use, a table created inside another's
 * location. Iceberg's own orphan and expiry actions look at one table: a file another table still
 * reaches looks unreachable to them and is deleted. Issue 24 lost whole tables that way (a
 * registered copy's sweep deleted its source's current metadata file; a sweep of {@code db.a}
 * deleted every data file of the {@code db.b} that wrote into its {@code data/}). Iceberg has no
 * such check; this is icecompact's own.
 *
 * <p>Decided from the catalog's listing and the metadata of the tables it picks: the listing
 * ({@link SharingLookup#listing()}: Glue's with each table's locations, or any catalog's by name)
 * is screened table by table ({@link SharingScreen}: read, try, name as not checked, refuse, skip);
 * a listed table is read from the metadata file the listing names, one by name only through the
 * catalog. A table whose folders (location, {@code write.data.path}, {@code
 * write.object-storage.path}, {@code write.folder-storage.path}, {@code write.metadata.path}, the
 * folder of its current metadata file) lie inside, contain or equal one of this table's is a
 * sharer; folders compare by path, scheme and bucket aside, so a doubt counts as an overlap. A
 * catalog that cannot be listed, or a table that may share and cannot be read, makes {@link #find}
 * refuse ({@link CareRefusedException}, naming it) rather than guess; a table outside the
 * deployment's locations that cannot be read is named in {@link #coverage()} instead. Throttled
 * calls are retried ({@link io.icecompact.care.catalog.ThrottlingRetry}).
 *
 * <p>What it cannot see: tables of another catalog (or another account's) that use the same
 * folders, and an unreadable table outside the deployment's locations whose {@code write.data.path}
 * points here. docs/fleet.md says so; {@code gc.enabled=false} on such a table makes every
 * destructive step refuse.
 */
public final class SharingTables {
  /**
   * Another table whose folders overlap, and how.
   *
   * @param table its identifier
   * @param overlap e.g. {@code location s3://b/wh/src is this table's location}
   */
  public record Sharer(String table, String overlap) {}

  /**
   * What the check covered, for the step's report.
   *
   * @param listed tables the listing showed, this one aside
   * @param loaded tables whose metadata was read
   * @param notCheckedCount tables named as not checked
   * @param notChecked at most {@link RemovedFiles#SAMPLE} of them, each {@code table: why}
   */
  public record Coverage(int listed, int loaded, int notCheckedCount, List<String> notChecked) {
    public Coverage {
      notChecked = List.copyOf(notChecked);
    }
  }

  /** Tables read at once. */
  private static final int LOADERS = 8;

  private final Coverage coverage;
  private final Map<Sharer, ReachableFiles> sharers;
  private final SharingLookup lookup;

  private SharingTables(
      Coverage coverage, Map<Sharer, ReachableFiles> sharers, SharingLookup lookup) {
    this.coverage = coverage;
    this.sharers = sharers;
    this.lookup = lookup;
  }

  /** {@link #find(SharingLookup, String, Table, String)} on any catalog, listed by name. */
  public static SharingTables find(Catalog catalog, String tableName, Table table, String step) {
    return find(SharingLookup.of(catalog), tableName, table, step);
  }

  /**
   * The tables of the catalog other than {@code tableName} that share {@code table}'s folders: the
   * listing screened ({@link SharingScreen}), the tables it picks read, the rest named.
   *
   * @param step the step that asks, for the refusal's message
   * @throws CareRefusedException when the catalog cannot be listed, or a table that may share this
   *     table's files (inside the deployment's locations, or overlapping by its listing) cannot be
   *     read
   */
  public static SharingTables find(
      SharingLookup lookup, String tableName, Table table, String step) {
    TableIdentifier self = TableIdentifier.parse(tableName);
    Map<String, String> ours = TableFolders.of(metadata(table));
    List<ListedTable> listed;
    try {
      listed = lookup.listing().tablesOtherThan(self);
    } catch (ListingFailedException | CatalogThrottledException e) {
      throw refusal(
          step,
          tableName,
          e.getMessage()
              + ", so whether another table shares "
              + tableName
              + "'s files is unknown");
    }
    SharingScreen screen = new SharingScreen(ours, lookup.scope());
    List<String> notChecked = new ArrayList<>();
    List<ListedTable> toLoad = new ArrayList<>();
    List<SharingScreen.Decision> loads = new ArrayList<>();
    for (ListedTable other : listed) {
      SharingScreen.Decision decision = screen.decide(other);
      switch (decision.action()) {
        case SKIP -> {}
        case NOT_CHECKED -> notChecked.add(other.id() + ": " + decision.why());
        case REFUSE ->
            throw refusal(step, tableName, "table " + other.id() + " is " + decision.why());
        case LOAD, TRY_LOAD -> {
          toLoad.add(other);
          loads.add(decision);
        }
      }
    }
    List<Read> reads = readAll(lookup, table, toLoad);
    Map<Sharer, ReachableFiles> sharers = new LinkedHashMap<>();
    for (int i = 0; i < reads.size(); i++) {
      ListedTable other = toLoad.get(i);
      Read read = reads.get(i);
      if (read.failure() != null) {
        if (loads.get(i).action() == SharingScreen.Action.LOAD) {
          throw refusal(
              step,
              tableName,
              "table "
                  + other.id()
                  + " of the catalog cannot be loaded ("
                  + describe(read.failure())
                  + lakeFormationNote(other)
                  + "), so it may share "
                  + tableName
                  + "'s files ("
                  + loads.get(i).why()
                  + ")");
        }
        notChecked.add(
            other.id()
                + ": "
                + SharingScreen.OUTSIDE
                + " (location "
                + other.location()
                + ", metadata "
                + other.metadataLocation()
                + "), its metadata cannot be read: "
                + describe(read.failure())
                + lakeFormationNote(other));
        continue;
      }
      String overlap = read.overlap();
      if (overlap == null) {
        continue;
      }
      try {
        sharers.put(new Sharer(other.id().toString(), overlap), ReachableFiles.of(read.table()));
      } catch (RuntimeException e) {
        throw refusal(
            step,
            tableName,
            "table "
                + other.id()
                + " shares its folders ("
                + overlap
                + ") but its metadata cannot be read ("
                + describe(e)
                + "), so which files it reaches is unknown");
      }
    }
    notChecked.sort(null); // by table name, whichever pass named it
    Coverage coverage =
        new Coverage(
            listed.size(),
            toLoad.size() - (int) reads.stream().filter(r -> r.failure() != null).count(),
            notChecked.size(),
            notChecked.subList(0, Math.min(RemovedFiles.SAMPLE, notChecked.size())));
    return new SharingTables(coverage, sharers, lookup);
  }

  /**
   * A table read: how its folders overlap this table's (null: apart) and, only when they do, the
   * table (a catalog's thousand metadata objects are not held at once); or why it could not be
   * read.
   */
  private record Read(String overlap, Table table, RuntimeException failure) {}

  /**
   * Reads each table a few at a time: from the metadata file the listing names when it names one
   * (one S3 read, no catalog call), through the catalog otherwise; throttling retried. Only what
   * the overlap check needs is kept until it is decided.
   */
  private static List<Read> readAll(SharingLookup lookup, Table ours, List<ListedTable> tables) {
    Map<String, String> folders = TableFolders.of(metadata(ours));
    ExecutorService loaders = Executors.newFixedThreadPool(LOADERS, daemonThreads());
    try {
      List<Future<Read>> loads = new ArrayList<>();
      for (ListedTable other : tables) {
        loads.add(
            loaders.submit(
                () -> {
                  Table theirs = read(lookup, ours, other);
                  String overlap = TableFolders.overlap(folders, TableFolders.of(metadata(theirs)));
                  return new Read(overlap, overlap == null ? null : theirs, null);
                }));
      }
      List<Read> reads = new ArrayList<>();
      for (Future<Read> load : loads) {
        try {
          reads.add(result(load));
        } catch (RuntimeException e) {
          reads.add(new Read(null, null, e));
        }
      }
      return reads;
    } finally {
      loaders.shutdownNow();
    }
  }

  private static Table read(SharingLookup lookup, Table ours, ListedTable other) {
    if (other.metadataLocation() != null) {
      // the listing's metadata file is the catalog's current one: read it with this table's FileIO
      // (one S3 GET, no catalog call to throttle)
      TableMetadata metadata =
          lookup
              .retry()
              .call(
                  "reading " + other.metadataLocation(),
                  () -> TableMetadataParser.read(ours.io(), other.metadataLocation()));
      return new BaseTable(new StaticTableOperations(metadata, ours.io()), other.id().toString());
    }
    return lookup
        .retry()
        .call("loading table " + other.id(), () -> lookup.catalog().loadTable(other.id()));
  }

  private static String lakeFormationNote(ListedTable table) {
    return table.lakeFormation()
        ? "; it is registered with Lake Formation (IsRegisteredWithLakeFormation): reading it needs"
            + " Lake Formation permissions the care role may lack"
        : "";
  }

  /**
   * Reads each sharer's metadata again and adds what its commits since reach, so a file a sharer
   * committed while a step was choosing what to delete is kept. Refuses when a sharer can no longer
   * be read.
   */
  public void refresh(Catalog catalog) {
    for (Map.Entry<Sharer, ReachableFiles> sharer : sharers.entrySet()) {
      try {
        TableIdentifier id = TableIdentifier.parse(sharer.getKey().table());
        sharer
            .getValue()
            .addNewSnapshots(
                lookup.retry().call("loading table " + id, () -> catalog.loadTable(id)));
      } catch (RuntimeException e) {
        throw new CareRefusedException(
            "Refusing to delete: table "
                + sharer.getKey().table()
                + ", which shares this table's folders, can no longer be read ("
                + describe(e)
                + "). Nothing was deleted.");
      }
    }
  }

  /**
   * For a step's one-line summary: {@code , 3 of the catalog's tables not checked} (the report
   * names them), or nothing.
   */
  static String notCheckedNote(Coverage coverage) {
    return coverage == null || coverage.notCheckedCount() == 0
        ? ""
        : ", " + coverage.notCheckedCount() + " of the catalog's tables not checked";
  }

  /** Tables listed, this one aside. */
  public int tablesChecked() {
    return coverage.listed();
  }

  public Coverage coverage() {
    return coverage;
  }

  public List<Sharer> sharers() {
    return List.copyOf(sharers.keySet());
  }

  /**
   * The sharer whose metadata reaches {@code location} (by normalized location, or by path when
   * scheme or bucket differ: it may be the same object), or null.
   */
  public String reachedBy(String location) {
    for (Map.Entry<Sharer, ReachableFiles> sharer : sharers.entrySet()) {
      ReachableFiles files = sharer.getValue();
      if (files.contains(location) || files.samePathAs(location) != null) {
        return sharer.getKey().table();
      }
    }
    return null;
  }

  /**
   * One line for a report: how many tables were listed and read, which share, and how many were not
   * checked (the report lists them).
   */
  public String describeSharers() {
    String notChecked =
        coverage.notCheckedCount() == 0
            ? ""
            : "; "
                + coverage.notCheckedCount()
                + " not checked, first: "
                + coverage.notChecked().get(0);
    if (sharers.isEmpty()) {
      return "no other table of the "
          + coverage.listed()
          + " in the catalog shares its folders ("
          + coverage.loaded()
          + " read)"
          + notChecked;
    }
    List<String> lines = new ArrayList<>();
    sharers.keySet().forEach(s -> lines.add(s.table() + " (" + s.overlap() + ")"));
    return String.join("; ", lines)
        + ": every file they reach is kept ("
        + coverage.listed()
        + " tables listed, "
        + coverage.loaded()
        + " read)"
        + notChecked;
  }

  private static <T> T result(Future<T> load) {
    try {
      return load.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException runtime
          ? runtime
          : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while loading the catalog's tables", e);
    }
  }

  private static ThreadFactory daemonThreads() {
    return runnable -> {
      Thread thread = new Thread(runnable, "icecompact-sharing-tables");
      thread.setDaemon(true);
      return thread;
    };
  }

  private static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }

  static CareRefusedException refusal(String step, String tableName, String why) {
    return new CareRefusedException(
        "Refusing " + step + " on " + tableName + ": " + why + ". Nothing was deleted.");
  }

  private static String describe(RuntimeException e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
