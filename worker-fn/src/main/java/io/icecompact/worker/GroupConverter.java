package io.icecompact.worker;

import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.worker.convert.ConvertedDeletes;
import io.icecompact.worker.convert.EqualityDeleteConverter;
import io.icecompact.worker.convert.FoundDeletes;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker stage of a {@code convert-equality-deletes} job: for each data file of the group,
 * turns the equality deletes that apply to it into one position delete file (v2) or deletion vector
 * (v3) with {@link EqualityDeleteConverter}, and stores what it wrote ({@link ConvertedGroup}) for
 * the committer. Data files are read (key columns and positions only), never written. As a
 * rewrite's outputs, every file is recorded in the work location before it is created, so the
 * committer deletes what an attempt that never reported left.
 */
final class GroupConverter {
  private static final Logger LOG = LoggerFactory.getLogger(GroupConverter.class);

  /** Data files a worker converts at once. */
  static final int FILES_AT_ONCE = 4;

  private GroupConverter() {}

  /** The result an earlier attempt of the group stored: it finished, only its answer was lost. */
  static Optional<GroupStatus> earlierResult(
      JobStore store, WorkLocation work, JobPlan plan, int groupIndex) {
    return store
        .readDocument(work.convertedGroup(groupIndex), ConvertedGroup.class)
        .filter(result -> result.jobId().equals(plan.jobId()))
        .map(result -> status(result, work));
  }

  /**
   * Converts the group's data files, {@code tasks} at the pinned snapshot (one task per data file),
   * and stores the result; {@code table} is the pinned table.
   */
  static GroupStatus convert(
      JobPlan plan,
      PlannedGroup group,
      int attempt,
      Table table,
      List<FileScanTask> tasks,
      JobStore store,
      WorkLocation work,
      long started) {
    // outputs are created through a view of the table that records each one first
    Table writing =
        GroupRewriter.withIO(
            table, new OutputRecordingFileIO(table.io(), store, work, group.index(), attempt));
    GroupDeleteLoader deletes = new GroupDeleteLoader(writing, tasks, group.index());
    EqualityDeleteConverter converter =
        new EqualityDeleteConverter(writing, deletes, group.index(), attempt, plan.jobId());
    Map<String, FileScanTask> byFile = new LinkedHashMap<>();
    tasks.forEach(task -> byFile.putIfAbsent(task.file().location(), task));
    List<ConvertedDeletes> converted = new ArrayList<>(byFile.size());
    try {
      converted.addAll(convertAll(converter, List.copyOf(byFile.values()), table.io()));
      ConvertedGroup result =
          new ConvertedGroup(
              plan.jobId(),
              group.index(),
              attempt,
              plan.pinned().snapshotId(),
              converted.stream().map(file -> entry(file, table)).toList(),
              converted.stream().mapToLong(ConvertedDeletes::bytesRead).sum(),
              System.currentTimeMillis() - started);
      store.writeDocument(work.convertedGroup(group.index()), result);
      LOG.info(
          "[{} {} worker group {}] converted the equality deletes of {} data files: {} rows deleted"
              + " by position in {} new delete files, {} bytes read, {} ms",
          plan.table(),
          plan.jobId(),
          group.index(),
          converted.size(),
          result.positions(),
          result.deleteFilesWritten(),
          result.bytesRead(),
          result.durationMillis());
      return status(result, work);
    } catch (RuntimeException e) {
      // no result names these files: no commit will hold them (the committer also deletes what
      // the attempt recorded, should this cleanup not finish)
      deleteQuietly(table.io(), converted);
      throw e;
    }
  }

  /**
   * Finds the deleted rows of the files {@link #FILES_AT_ONCE} at a time: each costs a few small
   * reads (the footer, the key columns' chunks), whose latency on S3, not the CPU, bounds a group's
   * time. Then writes their deletes: v2 a position delete file per data file, as many at once; v3
   * the group's deletion vectors in one Puffin file. Nothing is written unless every file's rows
   * were found. In plan order.
   */
  private static List<ConvertedDeletes> convertAll(
      EqualityDeleteConverter converter, List<FileScanTask> tasks, FileIO io) {
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Math.min(FILES_AT_ONCE, tasks.size())));
    try {
      List<FoundDeletes> found = inPool(pool, tasks, converter::find, written -> {});
      if (converter.writesDeletionVectors()) {
        return converter.writeDeletionVectors(found);
      }
      return inPool(
          pool, found, converter::writePositionDeletes, written -> deleteQuietly(io, written));
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * {@code work} applied to each of {@code items} on {@code pool}, in their order; on a failure,
   * once every item's work is done, {@code undo} is given the results of those that succeeded and
   * the first failure is thrown.
   */
  private static <T, R> List<R> inPool(
      ExecutorService pool, List<T> items, Function<T, R> work, Consumer<List<R>> undo) {
    List<Future<R>> futures = new ArrayList<>(items.size());
    for (T item : items) {
      futures.add(pool.submit(() -> work.apply(item)));
    }
    List<R> results = new ArrayList<>(items.size());
    RuntimeException failure = null;
    for (Future<R> future : futures) {
      try {
        results.add(future.get());
      } catch (ExecutionException e) {
        if (failure == null) {
          failure =
              e.getCause() instanceof RuntimeException runtime
                  ? runtime
                  : new IllegalStateException(e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while converting a group", e);
      }
    }
    if (failure != null) {
      undo.accept(results);
      throw failure;
    }
    return results;
  }

  private static ConvertedGroup.File entry(ConvertedDeletes file, Table table) {
    return new ConvertedGroup.File(
        file.dataFile(),
        file.equalityDeletes().stream().map(ContentFile::location).distinct().toList(),
        file.positions(),
        file.positionDeletes() == null ? null : json(file.positionDeletes(), table),
        file.replacedDeletes().stream().map(delete -> json(delete, table)).toList());
  }

  private static com.fasterxml.jackson.databind.JsonNode json(DeleteFile file, Table table) {
    return JobJson.tree(ContentFileParser.toJson(file, table.specs().get(file.specId())));
  }

  private static GroupStatus status(ConvertedGroup result, WorkLocation work) {
    return new GroupStatus(
        result.jobId(),
        result.groupIndex(),
        result.attempt(),
        0,
        result.positions(),
        0,
        result.deleteFilesWritten(),
        0,
        work.convertedGroup(result.groupIndex()));
  }

  private static void deleteQuietly(FileIO io, List<ConvertedDeletes> converted) {
    // v3's deletion vectors share their group's Puffin file
    Set<String> locations = new LinkedHashSet<>();
    converted.stream()
        .filter(file -> file.positionDeletes() != null)
        .forEach(file -> locations.add(file.positionDeletes().location()));
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException ignored) {
        // the committer deletes the attempt's recorded outputs
      }
    }
  }
}
