package io.icecompact.committer;

import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.ThreadPools;

/**
 * Reads what the committer checks of each group (its plan document, its stored result, the length
 * of each output file) a few groups ahead of the check, in plan order. One group at a time would
 * cost a thousand groups thousands of sequential S3 requests; reading everything first would hold
 * every group's documents at once. At most {@link #WINDOW} groups are read ahead.
 */
final class GroupReadAhead implements Iterator<GroupReadAhead.Read>, AutoCloseable {
  static final int THREADS = 8;
  static final int WINDOW = 2 * THREADS;

  /**
   * One group as read: {@code tasks} or {@code tasksError} (a document that cannot be read or does
   * not match the index), {@code result} or {@code resultError} (stored but unparseable), and the
   * length of each output the result names ({@code null} when the file does not exist).
   */
  record Read(
      PlannedGroup planned,
      List<FileScanTask> tasks,
      PlanIntegrityException tasksError,
      Optional<GroupResult> result,
      PlanIntegrityException resultError,
      Map<String, Long> outputLengths) {}

  private final JobPlan plan;
  private final JobStore store;
  private final WorkLocation work;
  private final FileIO io;
  private final ExecutorService pool;
  private final ArrayDeque<CompletableFuture<Read>> ahead = new ArrayDeque<>();
  private int nextToRead;

  GroupReadAhead(JobPlan plan, JobStore store, WorkLocation work, FileIO io) {
    this.plan = plan;
    this.store = store;
    this.work = work;
    this.io = io;
    this.pool = ThreadPools.newFixedThreadPool("icecompact-committer-read-ahead", THREADS);
    fill();
  }

  @Override
  public boolean hasNext() {
    return !ahead.isEmpty();
  }

  /**
   * The next group as read; an environmental failure (e.g. S3 throttling) is thrown as it was
   * raised.
   */
  @Override
  public Read next() {
    if (ahead.isEmpty()) {
      throw new NoSuchElementException();
    }
    CompletableFuture<Read> first = ahead.poll();
    fill();
    try {
      return first.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  private void fill() {
    while (ahead.size() < WINDOW && nextToRead < plan.groups().size()) {
      PlannedGroup group = plan.groups().get(nextToRead++);
      ahead.add(CompletableFuture.supplyAsync(() -> read(group), pool));
    }
  }

  private Read read(PlannedGroup group) {
    List<FileScanTask> tasks = null;
    PlanIntegrityException tasksError = null;
    try {
      tasks = store.readGroupTasks(work, plan, group.index());
    } catch (PlanIntegrityException e) {
      tasksError = e;
    }
    Optional<GroupResult> result = Optional.empty();
    PlanIntegrityException resultError = null;
    try {
      result = store.readGroupResult(work, group.index());
    } catch (PlanIntegrityException e) {
      resultError = e;
    }
    Map<String, Long> lengths = new HashMap<>();
    if (tasks != null && result.isPresent()) {
      result
          .get()
          .outputFiles()
          .forEach(
              file -> {
                String location = file.path("file-path").asText(null);
                if (location != null) {
                  lengths.put(location, storedLength(io, location));
                }
              });
    }
    return new Read(group, tasks, tasksError, result, resultError, lengths);
  }

  /** The length of the file stored at {@code location}, or null when there is none. */
  static Long storedLength(FileIO io, String location) {
    try {
      return io.newInputFile(location).getLength();
    } catch (NotFoundException e) {
      return null;
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
