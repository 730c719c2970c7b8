package io.icecompact.care;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Every file the table's metadata reaches: the metadata files (current and logged), the version
 * hint, statistics and partition statistics files, and for every snapshot in the metadata (every
 * ref's history is among them) its manifest list, its manifests and every data and delete file
 * (Puffin deletion vectors included) live in them. Manifests shared by snapshots are read once.
 *
 * <p>Files are indexed by {@link FileLocations#normalized} location and by path alone, so a listing
 * that names an object differently from the writer (scheme, doubled slashes, escapes) is recognised
 * as possibly the same file and kept.
 */
final class ReachableFiles {
  /** The size of a file the metadata names without one (metadata files, manifest lists). */
  static final long UNKNOWN_SIZE = -1;

  /**
   * By normalized location: the location as the metadata first named it, and its largest recorded
   * size.
   */
  private final Map<String, Reached> normalized = new HashMap<>();

  private final Map<String, String> byPath = new HashMap<>();
  private final Set<Long> snapshotsRead = new HashSet<>();
  private final Set<String> manifestsRead = new HashSet<>();

  /** What {@code table}'s current metadata reaches. */
  static ReachableFiles of(Table table) {
    ReachableFiles files = new ReachableFiles();
    files.addNewSnapshots(table);
    return files;
  }

  /**
   * Adds what {@code table} (refreshed by the caller) reaches that was not read yet: the metadata
   * files again, and only the snapshots not seen before. Called again just before deleting, so a
   * commit that landed during the listing protects its files.
   */
  void addNewSnapshots(Table table) {
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    ReachableFileUtil.metadataFileLocations(table, false).forEach(this::add);
    if (metadata.metadataFileLocation() != null) {
      add(metadata.metadataFileLocation());
    }
    metadata.previousFiles().forEach(entry -> add(entry.file()));
    add(ReachableFileUtil.versionHintLocation(table));
    metadata.statisticsFiles().stream().map(StatisticsFile::path).forEach(this::add);
    metadata.partitionStatisticsFiles().stream()
        .map(PartitionStatisticsFile::path)
        .forEach(this::add);
    for (Snapshot snapshot : table.snapshots()) {
      if (!snapshotsRead.add(snapshot.snapshotId())) {
        continue;
      }
      if (snapshot.manifestListLocation() != null) {
        add(snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        add(manifest.path(), manifest.length());
        if (manifestsRead.add(manifest.path())) {
          addEntries(table, manifest);
        }
      }
    }
  }

  private void addEntries(Table table, ManifestFile manifest) {
    try (CloseableIterable<? extends ContentFile<?>> files =
        manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, table.io(), table.specs())
            : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
      for (ContentFile<?> file : files) {
        add(file.location(), file.fileSizeInBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
    }
  }

  private void add(String location) {
    add(location, UNKNOWN_SIZE);
  }

  private void add(String location, long size) {
    if (location == null) {
      return; // a preview's in-memory metadata has no file of its own
    }
    normalized.merge(
        FileLocations.normalized(location),
        new Reached(location, size),
        (first, again) -> new Reached(first.location(), Math.max(first.size(), again.size())));
    byPath.putIfAbsent(FileLocations.path(location), location);
    byPath.putIfAbsent(FileLocations.decodedPath(location), location);
  }

  int size() {
    return normalized.size();
  }

  private record Reached(String location, long size) {}

  /** Every reachable location, as the metadata first named it. */
  List<String> locations() {
    return normalized.values().stream().map(Reached::location).toList();
  }

  /**
   * The file's size as the metadata records it (manifests, data and delete files), or {@value
   * #UNKNOWN_SIZE}.
   */
  long size(String location) {
    Reached reached = normalized.get(FileLocations.normalized(location));
    return reached == null ? UNKNOWN_SIZE : reached.size();
  }

  /** Whether {@code location}, as a listing returned it, is a reachable file. */
  boolean contains(String location) {
    return normalized.containsKey(FileLocations.normalized(location));
  }

  /**
   * A reachable location with the same path as {@code location} but another scheme or authority, or
   * null. Such a file is kept: it may be the same object named differently.
   */
  String samePathAs(String location) {
    String match = byPath.get(FileLocations.path(location));
    return match != null ? match : byPath.get(FileLocations.decodedPath(location));
  }
}
