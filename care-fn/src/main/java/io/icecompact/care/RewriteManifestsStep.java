package io.icecompact.care;

import io.icecompact.core.policy.CareStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Rewrites the current snapshot's data manifests with Iceberg core's {@code RewriteManifests} once
 * there are more than a threshold of them, clustered by partition: partitions are sorted and cut
 * into consecutive ranges of about {@code commit.manifest.target-size-bytes} of entries, one
 * manifest per range, so each manifest's partition summary is narrow and a filtered query opens few
 * of them. Files and rows do not change (the commit is a {@code replace} of manifests only); delete
 * manifests are left as they are.
 */
public final class RewriteManifestsStep implements TableCareStep<RewriteManifestsStep.Report> {
  public static final String NAME = CareStep.REWRITE_MANIFESTS.propertyName();

  /**
   * Default threshold: Iceberg's own {@code commit.manifest.min-count-to-merge} default (100), the
   * count at which a merging append would have merged manifests itself. A streaming table written
   * with fast appends gains one manifest per commit and never merges; past this count every query
   * plan reads 100+ manifests (one request each) where a clustered rewrite leaves one per size
   * target.
   */
  public static final int DEFAULT_MAX_DATA_MANIFESTS =
      TableProperties.MANIFEST_MIN_MERGE_COUNT_DEFAULT;

  private final int maxDataManifests;

  public RewriteManifestsStep() {
    this(DEFAULT_MAX_DATA_MANIFESTS);
  }

  /**
   * @param maxDataManifests rewrite when the current snapshot has more data manifests than this
   */
  public RewriteManifestsStep(int maxDataManifests) {
    if (maxDataManifests < 1) {
      throw new IllegalArgumentException("maxDataManifests must be >= 1, got " + maxDataManifests);
    }
    this.maxDataManifests = maxDataManifests;
  }

  /**
   * Manifest counts read from the current snapshot before and after.
   *
   * @param rewritten whether a rewrite was committed
   * @param reason why not, or what was done
   */
  public record Report(
      boolean rewritten,
      String reason,
      int dataManifestsBefore,
      int dataManifestsAfter,
      int deleteManifestsBefore,
      int deleteManifestsAfter,
      long dataFilesBefore,
      long dataFilesAfter)
      implements CareReport {
    @Override
    public String summary() {
      return String.format(
          "data manifests %d -> %d: %s", dataManifestsBefore, dataManifestsAfter, reason);
    }

    /** A rewrite that changed the count of live data files lost or duplicated entries. */
    @Override
    public List<String> problems() {
      return dataFilesBefore == dataFilesAfter
          ? List.of()
          : List.of(
              String.format(
                  "live data files %d before the rewrite, %d after",
                  dataFilesBefore, dataFilesAfter));
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Report run(Table table) {
    return rewrite(table, false);
  }

  /**
   * Whether {@link #run} would rewrite now, and how many manifests it would start from; commits
   * nothing.
   */
  @Override
  public Report preview(Table table) {
    return rewrite(table, true);
  }

  private Report rewrite(Table table, boolean preview) {
    table.refresh();
    Snapshot before = table.currentSnapshot();
    if (before == null) {
      return new Report(false, "the table has no snapshot", 0, 0, 0, 0, 0, 0);
    }
    List<ManifestFile> dataManifests = before.dataManifests(table.io());
    int deleteManifests = before.deleteManifests(table.io()).size();
    long filesBefore = liveFiles(dataManifests);
    if (dataManifests.size() <= maxDataManifests) {
      return new Report(
          false,
          String.format(
              "%d data manifests, not more than the threshold %d",
              dataManifests.size(), maxDataManifests),
          dataManifests.size(),
          dataManifests.size(),
          deleteManifests,
          deleteManifests,
          filesBefore,
          filesBefore);
    }
    if (preview) {
      return new Report(
          false,
          String.format(
              "would rewrite: %d data manifests, more than the threshold %d",
              dataManifests.size(), maxDataManifests),
          dataManifests.size(),
          dataManifests.size(),
          deleteManifests,
          deleteManifests,
          filesBefore,
          filesBefore);
    }
    Map<String, Integer> rangeOfPartition = partitionRanges(table, dataManifests);
    table
        .rewriteManifests()
        .clusterBy(
            file ->
                rangeOfPartition.getOrDefault(key(file.specId(), partitionPath(table, file)), -1))
        .commit();
    table.refresh();
    Snapshot after = table.currentSnapshot();
    List<ManifestFile> dataAfter = after.dataManifests(table.io());
    return new Report(
        after.snapshotId() != before.snapshotId(),
        String.format(
            "%d data manifests, more than the threshold %d",
            dataManifests.size(), maxDataManifests),
        dataManifests.size(),
        dataAfter.size(),
        deleteManifests,
        after.deleteManifests(table.io()).size(),
        filesBefore,
        liveFiles(dataAfter));
  }

  /**
   * Each partition's range number: partitions of one spec in their natural order, cut whenever the
   * entries so far would fill a manifest of the target size (bytes per entry measured on the
   * current manifests).
   */
  private static Map<String, Integer> partitionRanges(Table table, List<ManifestFile> manifests) {
    long totalBytes = 0;
    long totalEntries = 0;
    Map<Integer, Map<StructLike, Long>> entriesBySpec = new HashMap<>();
    for (ManifestFile manifest : manifests) {
      totalBytes += manifest.length();
      try (CloseableIterable<DataFile> files =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : files) {
          totalEntries++;
          PartitionSpec spec = table.specs().get(file.specId());
          Map<StructLike, Long> counts =
              entriesBySpec.computeIfAbsent(
                  file.specId(), id -> new TreeMap<>(Comparators.forType(spec.partitionType())));
          counts.merge(file.copyWithoutStats().partition(), 1L, Long::sum);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    long targetBytes =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.MANIFEST_TARGET_SIZE_BYTES,
            TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    long bytesPerEntry = Math.max(1, totalBytes / Math.max(1, totalEntries));
    long entriesPerManifest = Math.max(1, targetBytes / bytesPerEntry);
    Map<String, Integer> ranges = new HashMap<>();
    int range = 0;
    for (Map.Entry<Integer, Map<StructLike, Long>> spec : entriesBySpec.entrySet()) {
      long inRange = 0;
      for (Map.Entry<StructLike, Long> partition : spec.getValue().entrySet()) {
        if (inRange > 0 && inRange + partition.getValue() > entriesPerManifest) {
          range++;
          inRange = 0;
        }
        inRange += partition.getValue();
        ranges.put(
            key(
                spec.getKey(),
                table.specs().get(spec.getKey()).partitionToPath(partition.getKey())),
            range);
      }
      range++;
    }
    return ranges;
  }

  private static String partitionPath(Table table, DataFile file) {
    return table.specs().get(file.specId()).partitionToPath(file.partition());
  }

  private static String key(int specId, String partitionPath) {
    return specId + "/" + partitionPath;
  }

  private static long liveFiles(List<ManifestFile> manifests) {
    long files = 0;
    for (ManifestFile manifest : manifests) {
      files +=
          (manifest.addedFilesCount() == null ? 0 : manifest.addedFilesCount())
              + (manifest.existingFilesCount() == null ? 0 : manifest.existingFilesCount());
    }
    return files;
  }
}
