package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.fixtures.LiveRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What every compaction job must leave behind, whatever failed on the way, checked against the
 * table's metadata and what storage holds (read without faults):
 *
 * <ul>
 *   <li>the live rows are the model's: none lost, none resurrected;
 *   <li>every file a snapshot of the table references (manifest lists, manifests, data and delete
 *       files) exists;
 *   <li>the job's stored result agrees with the table: its snapshots are those stamped with the job
 *       id, a REWRITTEN group's inputs are gone and its outputs live, any other group's inputs are
 *       live and its outputs are not, the counts and the status follow from the groups; without a
 *       stored result no snapshot carries the job's stamp;
 *   <li>every file of the job in the table's data folder is live, or, when the job did not finish
 *       its commit, named by a stored group result (which a re-commit or a cleanup reads).
 * </ul>
 */
final class CompactionInvariants {
  private final Table table;
  private final S3Client storage;
  private final String bucket;

  CompactionInvariants(Table table, S3Client storage, String bucket) {
    this.table = table;
    this.storage = storage;
    this.bucket = bucket;
  }

  /** Checks every invariant for job {@code jobId}; returns its stored result, if it has one. */
  Optional<JobResult> assertHold(String jobId, Map<String, Long> modelRows) {
    table.refresh();
    assertThat(LiveRows.multiset(table))
        .as("live rows of %s against the model", table.name())
        .isEqualTo(modelRows);
    Set<String> stored = storedObjects();
    Set<String> missing = new TreeSet<>(referencedFiles());
    missing.removeAll(stored);
    assertThat(missing)
        .as("files referenced by the table's snapshots that storage lacks")
        .isEmpty();
    Optional<JobResult> result = assertOutcomesMatchTheTable(jobId);
    assertJobFilesCommittedOrListed(jobId, result, stored);
    return result;
  }

  private Optional<JobResult> assertOutcomesMatchTheTable(String jobId) {
    JobStore store = new JobStore(table.io());
    WorkLocation work = WorkLocation.of(null, table.location(), table.name(), jobId);
    List<Long> stamped = new ArrayList<>();
    table
        .snapshots()
        .forEach(
            snapshot -> {
              if (jobId.equals(snapshot.summary().get("icecompact.job-id"))) {
                stamped.add(snapshot.snapshotId());
              }
            });
    Optional<JobResult> found = store.readDocument(work.jobResult(), JobResult.class);
    if (found.isEmpty()) {
      assertThat(stamped).as("snapshots of job %s, which stored no result", jobId).isEmpty();
      return found;
    }
    JobResult result = found.get();
    assertThat(result.status()).as("status of job %s", jobId).isNotEqualTo(JobStatus.UNKNOWN);
    assertThat(result.snapshotIds())
        .as("the job's snapshots against those stamped with its id")
        .containsExactlyElementsOf(stamped);
    JobPlan plan =
        store.readPlan(jobId, work.plan(), store.storedPlanSha256(work.plan()).orElseThrow());
    Set<String> live = liveDataFiles();
    for (GroupOutcome group : result.groups()) {
      Set<String> inputs = new TreeSet<>();
      store
          .readGroupTasks(work, plan, group.groupIndex())
          .forEach(task -> inputs.add(task.file().location()));
      Set<String> outputs = outputsOf(store.readGroupResult(work, group.groupIndex()));
      String what =
          "group " + group.groupIndex() + " " + group.status() + " (" + group.reason() + ")";
      if (group.status() == Status.REWRITTEN) {
        assertThat(outputs).as("outputs of %s", what).isNotEmpty();
        assertThat(live).as("live files after %s", what).containsAll(outputs);
        assertThat(inputs).as("inputs of %s still live", what).noneMatch(live::contains);
        assertThat(stamped).as("snapshot of %s", what).contains(group.snapshotId());
      } else {
        assertThat(live).as("live files after %s", what).containsAll(inputs);
        assertThat(outputs).as("outputs of %s that are live", what).noneMatch(live::contains);
      }
    }
    long rewritten = result.groups().stream().filter(g -> g.status() == Status.REWRITTEN).count();
    long conflicted = result.groups().stream().filter(g -> g.status() == Status.CONFLICTED).count();
    assertThat(result.rewrittenGroups()).isEqualTo(rewritten);
    assertThat(result.conflictedGroups()).isEqualTo(conflicted);
    assertThat(result.failedGroups()).isEqualTo(result.groups().size() - rewritten - conflicted);
    JobStatus expected =
        rewritten == result.groups().size()
            ? JobStatus.COMMITTED
            : rewritten > 0 ? JobStatus.PARTIAL : JobStatus.FAILED;
    assertThat(result.status())
        .as("status of job %s: %s", jobId, result.reason())
        .isEqualTo(expected);
    return found;
  }

  /**
   * A finished job (stored result) leaves only live files, or files its result's problems name (an
   * output it could not delete); one that stopped before its result leaves files a stored group
   * result names, so a re-commit commits them or a cleanup finds them.
   */
  private void assertJobFilesCommittedOrListed(
      String jobId, Optional<JobResult> result, Set<String> stored) {
    String dataFolder = table.location() + "/data/";
    Set<String> jobFiles = new TreeSet<>();
    stored.stream()
        .filter(l -> l.startsWith(dataFolder) && l.contains(jobId))
        .forEach(jobFiles::add);
    Set<String> live = liveDataFiles();
    Set<String> notLive = new TreeSet<>(jobFiles);
    notLive.removeAll(live);
    if (result.isPresent()) {
      List<String> problems = result.get().verification().problems();
      assertThat(notLive)
          .as(
              "files of finished job %s that no snapshot holds, against its problems %s",
              jobId, problems)
          .allMatch(location -> problems.stream().anyMatch(problem -> problem.contains(location)));
      return;
    }
    Set<String> listed = new HashSet<>();
    JobStore store = new JobStore(table.io());
    WorkLocation work = WorkLocation.of(null, table.location(), table.name(), jobId);
    for (int group = 0; ; group++) {
      Optional<GroupResult> groupResult = store.readGroupResult(work, group);
      if (groupResult.isEmpty() && !table.io().newInputFile(work.groupPlan(group)).exists()) {
        break;
      }
      listed.addAll(outputsOf(groupResult));
    }
    assertThat(listed)
        .as("files of unfinished job %s that no group result names", jobId)
        .containsAll(notLive);
  }

  private static Set<String> outputsOf(Optional<GroupResult> result) {
    Set<String> outputs = new TreeSet<>();
    result.ifPresent(
        r -> r.outputFiles().forEach(file -> outputs.add(file.get("file-path").asText())));
    return outputs;
  }

  Set<String> liveDataFiles() {
    Set<String> live = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> live.add(task.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return live;
  }

  /** Every file any snapshot of the table references, and the current metadata file. */
  Set<String> referencedFiles() {
    Set<String> referenced = new TreeSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      referenced.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (!referenced.add(manifest.path())) {
          continue; // a manifest is immutable: its files were added when an earlier snapshot listed
          // it
        }
        try (CloseableIterable<? extends ContentFile<?>> files =
            manifest.content() == ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          files.forEach(file -> referenced.add(file.location()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return referenced;
  }

  private Set<String> storedObjects() {
    Set<String> locations = new HashSet<>();
    storage
        .listObjectsV2Paginator(b -> b.bucket(bucket))
        .contents()
        .forEach(object -> locations.add("s3://" + bucket + "/" + object.key()));
    return locations;
  }
}
