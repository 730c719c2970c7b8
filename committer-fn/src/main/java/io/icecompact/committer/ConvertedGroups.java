package io.icecompact.committer;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.JobInvariantViolationException;
import io.icecompact.core.error.StoredDocumentUnreadableException;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.GroupOutcome.Status;
import io.icecompact.core.job.IcebergFileJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.PlannedGroup;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.Tasks;
import org.apache.iceberg.util.ThreadPools;

/**
 * Reads every group's stored conversion and checks it against the plan: a group without one is
 * {@code FAILED} (with its worker's recorded failure, if any); one that disagrees with its planned
 * data files fails the whole job before any commit, as a rewrite's broken invariant does. Keeps
 * only the results and the groups' equality delete files, not their scan tasks.
 */
final class ConvertedGroups {
  /** Delete files' lengths looked up at once, as {@link GroupReadAhead} reads outputs'. */
  static final int THREADS = GroupReadAhead.THREADS;

  private ConvertedGroups() {}

  /**
   * @param outputsMustExist false when an earlier run of the committer already committed: its
   *     cleanup deleted the outputs of the files and groups it left out
   */
  static void read(ConversionRun run, boolean outputsMustExist) {
    ExecutorService lengths =
        ThreadPools.newFixedThreadPool("icecompact-committer-lengths", THREADS);
    try {
      read(run, outputsMustExist, lengths);
    } finally {
      lengths.shutdownNow();
    }
  }

  private static void read(ConversionRun run, boolean outputsMustExist, ExecutorService lengths) {
    for (PlannedGroup group : run.plan.groups()) {
      Optional<ConvertedGroup> result;
      try {
        result =
            run.store.readDocument(run.work.convertedGroup(group.index()), ConvertedGroup.class);
      } catch (StoredDocumentUnreadableException e) {
        // as a rewrite's unreadable result: the group failed, the others go on
        run.end(group, Status.FAILED, "its stored result cannot be read: " + e.getMessage());
        continue;
      }
      if (result.isEmpty()) {
        run.end(group, Status.FAILED, failure(run, group));
        continue;
      }
      List<FileScanTask> tasks = run.store.readGroupTasks(run.work, run.plan, group.index());
      check(run.plan, group, result.get(), tasks, run.table, outputsMustExist ? lengths : null);
      for (FileScanTask task : tasks) {
        task.deletes().stream()
            .filter(delete -> delete.content() == FileContent.EQUALITY_DELETES)
            .forEach(delete -> run.equalityDeletes.putIfAbsent(delete.location(), delete));
      }
      run.ready.put(group.index(), new ConversionRun.Ready(group, result.get()));
    }
    if (!run.options.allowPartial() && run.ready.size() < run.plan.groups().size()) {
      run.endAll(Status.NOT_COMMITTED, "not committed: allow-partial=false and a group failed");
    }
  }

  /**
   * A stored result converts exactly the group's planned data files, each once, at the pinned
   * snapshot; each delete file it wrote names its data file and, unless {@code lengths} is null,
   * exists with the size the result records.
   */
  private static void check(
      JobPlan plan,
      PlannedGroup group,
      ConvertedGroup result,
      List<FileScanTask> tasks,
      Table table,
      ExecutorService lengths) {
    Set<String> planned = new HashSet<>();
    tasks.forEach(task -> planned.add(task.file().location()));
    Set<String> converted = new HashSet<>();
    // v3: a group's deletion vectors share one Puffin file, checked once
    Map<String, Long> written = new LinkedHashMap<>();
    String problem = null;
    if (!plan.jobId().equals(result.jobId())
        || result.pinnedSnapshotId() != plan.pinned().snapshotId()) {
      problem =
          String.format(
              "its result was made by job %s at snapshot %d",
              result.jobId(), result.pinnedSnapshotId());
    }
    for (ConvertedGroup.File file : result.files()) {
      if (!converted.add(file.dataFile())) {
        problem = "data file " + file.dataFile() + " is converted twice";
      }
      if (file.positionDeletes() != null) {
        DeleteFile delete = deleteFile(file.positionDeletes(), table);
        if (!file.dataFile().equals(ContentFileUtil.referencedDataFileLocation(delete))) {
          problem =
              "its delete file "
                  + delete.location()
                  + " does not name data file "
                  + file.dataFile();
        }
        written.put(delete.location(), delete.fileSizeInBytes());
      }
    }
    if (problem == null && lengths != null) {
      problem = storedLengthProblem(written, table.io(), lengths);
    }
    if (problem == null && !converted.equals(planned)) {
      problem =
          String.format(
              "it converted %d data files, its plan has %d (%d in common)",
              converted.size(),
              planned.size(),
              converted.stream().filter(planned::contains).count());
    }
    if (problem != null) {
      throw new JobInvariantViolationException(
          String.format(
              "Job %s not committed: group %d's result is wrong: %s",
              plan.jobId(), group.index(), problem));
    }
  }

  /**
   * The first delete file that is missing or whose size is not the one recorded, or null. Looked up
   * in parallel: a v2 group writes a file per data file, hundreds of requests on S3.
   */
  private static String storedLengthProblem(
      Map<String, Long> recorded, FileIO io, ExecutorService pool) {
    Map<String, Optional<Long>> stored = new ConcurrentHashMap<>();
    Tasks.foreach(recorded.keySet())
        .executeWith(pool)
        .throwFailureWhenFinished()
        .run(
            location ->
                stored.put(
                    location, Optional.ofNullable(GroupReadAhead.storedLength(io, location))));
    for (Map.Entry<String, Long> file : recorded.entrySet()) {
      Optional<Long> length = stored.get(file.getKey());
      if (length.isEmpty()) {
        return "its delete file " + file.getKey() + " does not exist";
      }
      if (length.get().longValue() != file.getValue()) {
        return String.format(
            "its delete file %s has %d bytes, its result records %d",
            file.getKey(), length.get(), file.getValue());
      }
    }
    return null;
  }

  private static String failure(ConversionRun run, PlannedGroup group) {
    return run.store
        .readGroupFailure(run.work, group.index())
        // named as a rewrite's failed group is: the error type, then its message
        .map(failure -> failure.errorType() + ": " + failure.message())
        .orElse("no result was stored for it (its worker did not finish)");
  }

  static DeleteFile deleteFile(JsonNode node, Table table) {
    return (DeleteFile) IcebergFileJson.contentFile(node, table.specs());
  }

  static String location(JsonNode node) {
    return node.get("file-path").textValue();
  }
}
