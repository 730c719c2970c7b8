package io.icecompact.care;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
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
 * <p>Decided from the catalog's listing and each table's metadata alone: every namespace (nested
 * ones too) and every table in it is listed and loaded. A table whose folders (location, {@code
 * write.data.path}, {@code write.object-storage.path}, {@code write.folder-storage.path}, {@code
 * write.metadata.path}, the folder of its current metadata file) lie inside, contain or equal one
 * of this table's is a sharer; folders compare by path, scheme and bucket aside, so a doubt counts
 * as an overlap. A namespace that cannot be listed, or a table that cannot be loaded or whose
 * metadata cannot be read, may share: {@link #find} refuses ({@link CareRefusedException}, naming
 * it) rather than guess.
 *
 * <p>What it cannot see: tables of another catalog (or another account's) that use the same
 * folders. docs/fleet.md says so; {@code gc.enabled=false} on such a table makes every destructive
 * step refuse.
 */
public final class SharingTables {
  /**
   * Another table whose folders overlap, and how.
   *
   * @param table its identifier
   * @param overlap e.g. {@code location s3://b/wh/src is this table's location}
   */
  public record Sharer(String table, String overlap) {}

  /** Tables loaded at once. */
  private static final int LOADERS = 8;

  private final int tablesChecked;
  private final Map<Sharer, ReachableFiles> sharers;

  private SharingTables(int tablesChecked, Map<Sharer, ReachableFiles> sharers) {
    this.tablesChecked = tablesChecked;
    this.sharers = sharers;
  }

  /**
   * The tables of {@code catalog} other than {@code tableName} that share {@code table}'s folders.
   *
   * @param step the step that asks, for the refusal's message
   * @throws CareRefusedException when the catalog cannot list its tables, or one of them cannot be
   *     loaded or read: it may share this table's files
   */
  public static SharingTables find(Catalog catalog, String tableName, Table table, String step) {
    TableIdentifier self = TableIdentifier.parse(tableName);
    Map<String, String> ours = folders(metadata(table));
    Map<Sharer, ReachableFiles> sharers = new LinkedHashMap<>();
    List<TableIdentifier> others = otherTables(catalog, self, tableName, step);
    // loaded a few at a time: each load is a catalog call and a metadata file read (tens of ms on
    // Glue and
    // S3), and a catalog holds hundreds of tables; only their folders are kept, not their metadata
    ExecutorService loaders = Executors.newFixedThreadPool(LOADERS, daemonThreads());
    List<TableIdentifier> overlapping = new ArrayList<>();
    List<String> overlaps = new ArrayList<>();
    try {
      List<Future<Map<String, String>>> loads = new ArrayList<>();
      others.forEach(
          id -> loads.add(loaders.submit(() -> folders(metadata(catalog.loadTable(id))))));
      for (int i = 0; i < others.size(); i++) {
        TableIdentifier id = others.get(i);
        Map<String, String> theirs;
        try {
          theirs = result(loads.get(i));
        } catch (RuntimeException e) {
          throw refusal(
              step,
              tableName,
              "table "
                  + id
                  + " of the catalog cannot be loaded ("
                  + describe(e)
                  + "), so it may share "
                  + tableName
                  + "'s files");
        }
        String overlap = overlap(ours, theirs);
        if (overlap != null) {
          overlapping.add(id);
          overlaps.add(overlap);
        }
      }
    } finally {
      loaders.shutdownNow();
    }
    for (int i = 0; i < overlapping.size(); i++) {
      TableIdentifier id = overlapping.get(i);
      try {
        sharers.put(
            new Sharer(id.toString(), overlaps.get(i)), ReachableFiles.of(catalog.loadTable(id)));
      } catch (RuntimeException e) {
        throw refusal(
            step,
            tableName,
            "table "
                + id
                + " shares its folders ("
                + overlaps.get(i)
                + ") but its metadata cannot be read ("
                + describe(e)
                + "), so which files it reaches is unknown");
      }
    }
    return new SharingTables(others.size(), sharers);
  }

  /**
   * Reads each sharer's metadata again and adds what its commits since reach, so a file a sharer
   * committed while a step was choosing what to delete is kept. Refuses when a sharer can no longer
   * be read.
   */
  public void refresh(Catalog catalog) {
    for (Map.Entry<Sharer, ReachableFiles> sharer : sharers.entrySet()) {
      try {
        sharer
            .getValue()
            .addNewSnapshots(catalog.loadTable(TableIdentifier.parse(sharer.getKey().table())));
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

  /** Tables listed and checked, this one aside. */
  public int tablesChecked() {
    return tablesChecked;
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

  /** One line for a report: how many tables were checked and which share. */
  public String describeSharers() {
    if (sharers.isEmpty()) {
      return "no other table of the " + tablesChecked + " in the catalog shares its folders";
    }
    List<String> lines = new ArrayList<>();
    sharers.keySet().forEach(s -> lines.add(s.table() + " (" + s.overlap() + ")"));
    return String.join("; ", lines) + ": every file they reach is kept";
  }

  private static List<TableIdentifier> otherTables(
      Catalog catalog, TableIdentifier self, String tableName, String step) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      throw refusal(
          step,
          tableName,
          "the catalog "
              + catalog.getClass().getName()
              + " cannot list its namespaces, so whether another table shares "
              + tableName
              + "'s files is unknown");
    }
    List<TableIdentifier> tables = new ArrayList<>();
    Deque<Namespace> queue = new ArrayDeque<>();
    try {
      queue.addAll(namespaces.listNamespaces());
    } catch (RuntimeException e) {
      throw refusal(
          step, tableName, "the catalog's namespaces cannot be listed (" + describe(e) + ")");
    }
    while (!queue.isEmpty()) {
      Namespace namespace = queue.poll();
      try {
        for (TableIdentifier id : catalog.listTables(namespace)) {
          if (!id.toString().equalsIgnoreCase(self.toString())) {
            tables.add(id);
          }
        }
        queue.addAll(namespaces.listNamespaces(namespace));
      } catch (RuntimeException e) {
        throw refusal(
            step,
            tableName,
            "namespace "
                + namespace
                + " cannot be listed ("
                + describe(e)
                + "), so a table in it may share "
                + tableName
                + "'s files");
      }
    }
    return tables;
  }

  /** The folders a table writes to, by the property (or role) that names each. */
  static Map<String, String> folders(TableMetadata metadata) {
    Map<String, String> folders = new LinkedHashMap<>();
    folders.put("location", metadata.location());
    Map<String, String> properties = metadata.properties();
    for (String key :
        List.of(
            TableProperties.WRITE_DATA_LOCATION,
            TableProperties.OBJECT_STORE_PATH,
            TableProperties.WRITE_FOLDER_STORAGE_LOCATION,
            TableProperties.WRITE_METADATA_LOCATION)) {
      String value = properties.get(key);
      if (value != null && !value.isBlank()) {
        folders.put(key, value);
      }
    }
    String metadataFile = metadata.metadataFileLocation();
    if (metadataFile != null && metadataFile.lastIndexOf('/') > 0) {
      folders.put(
          "current metadata file's folder",
          metadataFile.substring(0, metadataFile.lastIndexOf('/')));
    }
    return folders;
  }

  /** How two tables' folders overlap (the first pair found), or null when none does. */
  static String overlap(Map<String, String> ours, Map<String, String> theirs) {
    for (Map.Entry<String, String> mine : ours.entrySet()) {
      for (Map.Entry<String, String> other : theirs.entrySet()) {
        String relation =
            relation(FileLocations.path(other.getValue()), FileLocations.path(mine.getValue()));
        if (relation != null) {
          return String.format(
              "its %s %s %s this table's %s %s",
              other.getKey(), other.getValue(), relation, mine.getKey(), mine.getValue());
        }
      }
    }
    return null;
  }

  /**
   * How folder {@code a} relates to folder {@code b} by path: the same, inside, containing; null:
   * apart.
   */
  private static String relation(String a, String b) {
    String left = a.isEmpty() ? "/" : a;
    String right = b.isEmpty() ? "/" : b;
    if (left.equals(right)) {
      return "is";
    }
    if (right.equals("/") || left.startsWith(right + "/")) {
      return "is inside";
    }
    if (left.equals("/") || right.startsWith(left + "/")) {
      return "contains";
    }
    return null;
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
