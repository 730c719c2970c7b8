package io.icecompact.testkit;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The test of issue 24's promise, "nothing any table reaches is gone": every table of a catalog
 * (every namespace, nested ones too), and for each every file its metadata reaches (the current and
 * logged metadata files, statistics and partition statistics, and for every snapshot any ref keeps
 * its manifest list, manifests, data and delete files), checked present in storage. Written apart
 * from the care code it checks, on purpose: a bug in {@code ReachableFiles} must not hide itself.
 */
public final class EveryTableReaches {
  private EveryTableReaches() {}

  /**
   * Each file some table reaches that storage no longer has, as {@code table: location (what it
   * is)}.
   */
  public static List<String> missingFiles(Catalog catalog) {
    List<String> missing = new ArrayList<>();
    for (TableIdentifier id : tables(catalog)) {
      Table table;
      try {
        table = catalog.loadTable(id);
      } catch (RuntimeException e) {
        missing.add(
            id
                + ": cannot be loaded ("
                + e.getClass().getSimpleName()
                + ": "
                + e.getMessage()
                + ")");
        continue;
      }
      reached(table)
          .forEach(
              (location, what) -> {
                if (!exists(table, location)) {
                  missing.add(id + ": " + location + " (" + what + ")");
                }
              });
    }
    return missing;
  }

  /** How many files the tables of the catalog reach, for a test's figures. */
  public static int filesReached(Catalog catalog) {
    int count = 0;
    for (TableIdentifier id : tables(catalog)) {
      count += reached(catalog.loadTable(id)).size();
    }
    return count;
  }

  static List<TableIdentifier> tables(Catalog catalog) {
    SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
    List<TableIdentifier> tables = new ArrayList<>();
    Deque<Namespace> queue = new ArrayDeque<>(namespaces.listNamespaces());
    while (!queue.isEmpty()) {
      Namespace namespace = queue.poll();
      tables.addAll(catalog.listTables(namespace));
      queue.addAll(namespaces.listNamespaces(namespace));
    }
    return tables;
  }

  private static Map<String, String> reached(Table table) {
    Map<String, String> files = new LinkedHashMap<>();
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    files.put(metadata.metadataFileLocation(), "current metadata");
    metadata.previousFiles().forEach(entry -> files.putIfAbsent(entry.file(), "metadata log"));
    metadata.statisticsFiles().stream()
        .map(StatisticsFile::path)
        .forEach(p -> files.putIfAbsent(p, "statistics"));
    metadata.partitionStatisticsFiles().stream()
        .map(PartitionStatisticsFile::path)
        .forEach(p -> files.putIfAbsent(p, "partition statistics"));
    for (Snapshot snapshot : metadata.snapshots()) {
      String of = "snapshot " + snapshot.snapshotId() + "'s ";
      if (snapshot.manifestListLocation() != null) {
        files.putIfAbsent(snapshot.manifestListLocation(), of + "manifest list");
      }
      List<ManifestFile> manifests;
      try {
        manifests = snapshot.allManifests(table.io());
      } catch (RuntimeException e) {
        continue; // its manifest list is gone: listed above, reported missing
      }
      for (ManifestFile manifest : manifests) {
        files.putIfAbsent(manifest.path(), of + "manifest");
        try (CloseableIterable<? extends ContentFile<?>> entries =
            manifest.content() == ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (ContentFile<?> file : entries) {
            files.putIfAbsent(file.location(), of + file.content().name().toLowerCase() + " file");
          }
        } catch (IOException | RuntimeException e) {
          // the manifest is gone or unreadable: listed above, reported missing when gone
        }
      }
    }
    return files;
  }

  private static boolean exists(Table table, String location) {
    try {
      return table.io().newInputFile(location).exists();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
