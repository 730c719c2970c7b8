package io.icecompact.engine.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.testkit.EveryTableReaches;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

/**
 * What must hold after every soak job, read from the table itself: the live rows are the model's,
 * every file any snapshot references exists, the job's status and group outcomes agree with the
 * snapshots that carry its stamp, and no output of the job is left outside them (unless the job
 * ended UNKNOWN, which keeps everything until a re-commit decides). One instance per table: it
 * remembers the snapshots and manifests it has read, since nothing here expires snapshots and so
 * every file once referenced must stay. Besides, every file any table of the catalog reaches now
 * must exist ({@link EveryTableReaches}, written apart from this class and the care code).
 */
final class SoakInvariants {
  static final String JOB_ID = "icecompact.job-id";
  private static final String REWRITTEN_GROUPS = "icecompact.rewritten-groups";

  private final Set<Long> seenSnapshots = new HashSet<>();
  private final Set<String> seenManifests = new HashSet<>();
  private final Set<String> referenced = new HashSet<>();
  private final Catalog catalog;

  /**
   * {@code catalog}: the soak's catalog, every table of which is checked after each job of this
   * table.
   */
  SoakInvariants(Catalog catalog) {
    this.catalog = catalog;
  }

  /** Checks everything; {@code context} (seed, job number, table, fault) prefixes every message. */
  void check(Table table, JobResult result, Map<String, Long> expectedRows, String context) {
    table.refresh();
    String where =
        context
            + " job "
            + result.jobId()
            + " "
            + result.status()
            + " ("
            + result.reason()
            + "), groups "
            + result.groups().stream()
                .map(
                    g ->
                        g.groupIndex()
                            + ":"
                            + g.partition()
                            + ":"
                            + g.status()
                            + ":"
                            + g.rewritePath()
                            + ":"
                            + g.inputFiles())
                .toList();
    assertRows(LiveRows.multiset(table), expectedRows, where);
    everyReferencedFileExists(table, where);
    assertThat(EveryTableReaches.missingFiles(catalog))
        .as("%s: files some table of the catalog reaches that are gone", where)
        .isEmpty();
    statusAgreesWithSnapshots(table, result, where);
    if (result.status() != JobStatus.UNKNOWN) {
      Set<String> added = addedByJob(table, result.jobId());
      assertThat(filesNamedFor(table, result.jobId()))
          .as("%s: files of the job outside its snapshots", where)
          .allSatisfy(file -> assertThat(added).as(where).contains(file));
    }
  }

  /** The rows lost and the rows resurrected or duplicated, not the whole table, in the message. */
  static void assertRows(Map<String, Long> actual, Map<String, Long> expected, String where) {
    Map<String, Long> lost = new TreeMap<>();
    Map<String, Long> extra = new TreeMap<>();
    Set<String> keys = new HashSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    for (String row : keys) {
      long difference = actual.getOrDefault(row, 0L) - expected.getOrDefault(row, 0L);
      if (difference < 0) {
        lost.put(row, -difference);
      } else if (difference > 0) {
        extra.put(row, difference);
      }
    }
    assertThat(lost.size() + extra.size())
        .as(
            "%s: live rows: %d expected, %d live; lost %s; extra %s",
            where, LiveRows.count(expected), LiveRows.count(actual), first(lost), first(extra))
        .isZero();
  }

  private static String first(Map<String, Long> rows) {
    return rows.size() <= 10
        ? rows.toString()
        : rows.entrySet().stream().limit(10).toList() + " and " + (rows.size() - 10) + " more";
  }

  static List<Snapshot> stamped(Table table, String jobId) {
    return snapshots(table).stream().filter(s -> jobId.equals(s.summary().get(JOB_ID))).toList();
  }

  private static void statusAgreesWithSnapshots(Table table, JobResult result, String where) {
    List<Snapshot> stamped = stamped(table, result.jobId());
    Set<Long> stampedIds = new HashSet<>(stamped.stream().map(Snapshot::snapshotId).toList());
    assertThat(new HashSet<>(result.snapshotIds()))
        .as("%s: reported snapshots vs stamped", where)
        .isEqualTo(stampedIds);
    // a conversion's groups end CONVERTED where a rewrite's end REWRITTEN: both are committed
    List<GroupOutcome> rewritten = result.groups().stream().filter(g -> committed(g)).toList();
    assertThat(result.rewrittenGroups())
        .as("%s: rewritten groups", where)
        .isEqualTo(rewritten.size());
    assertThat(
            stamped.stream()
                .mapToInt(s -> Integer.parseInt(s.summary().get(REWRITTEN_GROUPS)))
                .sum())
        .as("%s: groups in the stamped snapshots' summaries", where)
        .isEqualTo(rewritten.size());
    for (GroupOutcome group : result.groups()) {
      if (committed(group)) {
        assertThat(stampedIds)
            .as("%s: snapshot of group %d", where, group.groupIndex())
            .contains(group.snapshotId());
      } else {
        assertThat(group.snapshotId())
            .as("%s: snapshot of unrewritten group %d", where, group.groupIndex())
            .isNull();
      }
    }
    switch (result.status()) {
      case COMMITTED ->
          assertThat(result.groups())
              .as(where)
              .isNotEmpty()
              .allSatisfy(g -> assertThat(committed(g)).as("%s: group %s", where, g).isTrue());
      case PARTIAL -> {
        assertThat(rewritten).as(where).isNotEmpty();
        assertThat(rewritten.size()).as(where).isLessThan(result.groups().size());
      }
      case FAILED, CONTENDED, NOTHING_TO_DO -> assertThat(stamped).as(where).isEmpty();
      case UNKNOWN ->
          assertThat(result.groups())
              .as(where)
              .anySatisfy(g -> assertThat(g.status()).isEqualTo(GroupOutcome.Status.NOT_COMMITTED));
    }
    if (result.status() != JobStatus.UNKNOWN) {
      assertThat(result.verification().verified())
          .as("%s: verification problems %s", where, result.verification().problems())
          .isTrue();
    }
  }

  private static boolean committed(GroupOutcome group) {
    return group.status() == GroupOutcome.Status.REWRITTEN
        || group.status() == GroupOutcome.Status.CONVERTED;
  }

  /**
   * Every manifest list, manifest, data and delete file of every snapshot so far is still there.
   */
  private void everyReferencedFileExists(Table table, String where) {
    for (Snapshot snapshot : snapshots(table)) {
      if (!seenSnapshots.add(snapshot.snapshotId())) {
        continue;
      }
      referenced.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (seenManifests.add(manifest.path())) {
          referenced.add(manifest.path());
          referenced.addAll(liveEntries(table, manifest));
        }
      }
    }
    List<String> missing =
        referenced.stream().filter(file -> !table.io().newInputFile(file).exists()).toList();
    assertThat(missing).as("%s: files a snapshot references that are gone", where).isEmpty();
  }

  private static List<String> liveEntries(Table table, ManifestFile manifest) {
    try (ManifestReader<? extends ContentFile<?>> reader =
        manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, table.io(), table.specs())
            : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
      List<String> files = new java.util.ArrayList<>();
      for (ContentFile<?> file : reader) {
        files.add(file.location());
      }
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Set<String> addedByJob(Table table, String jobId) {
    Set<String> added = new HashSet<>();
    for (Snapshot snapshot : stamped(table, jobId)) {
      SnapshotChanges.builderFor(table)
          .snapshot(snapshot)
          .build()
          .addedDataFiles()
          .forEach(file -> added.add(file.location().replaceFirst("^file:", "")));
      // a conversion adds delete files (position deletes, deletion vectors) only
      SnapshotChanges.builderFor(table)
          .snapshot(snapshot)
          .build()
          .addedDeleteFiles()
          .forEach(file -> added.add(file.location().replaceFirst("^file:", "")));
    }
    return added;
  }

  /** Every file under the table's data folder whose name carries {@code jobId}. */
  private static List<String> filesNamedFor(Table table, String jobId) {
    Path data = Path.of(table.location().replaceFirst("^file:", "")).resolve("data");
    if (!Files.isDirectory(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().contains(jobId))
          .map(Path::toString)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Snapshot> snapshots(Table table) {
    List<Snapshot> all = new java.util.ArrayList<>();
    table.snapshots().forEach(all::add);
    return all;
  }
}
