package io.icecompact.cli.history;

import io.icecompact.care.FileLocations;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.JobOfAnotherTableException;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.error.StoredDocumentUnreadableException;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lease.JobLogEntry;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The jobs run without the deployed pipeline (the {@code compact} and {@code sweep} commands), read
 * from their work locations through the table's FileIO: every folder under {@code
 * <table>/_icecompact} (or {@code <work base>/<table>}) is a job, and its {@code result.json} says
 * how it ended. A job is as old as its oldest file, and ended when its result was written; a folder
 * without a result is a job still running or one stopped before its commit ({@value #NO_RESULT}).
 * Tables registered on one location share its folder, so a job is the table's own unless its result
 * (else its plan) names another table. The care step {@code remove-orphans} deletes finished jobs'
 * folders after its minimum age, so this history is as long as that age.
 */
public final class WorkLocationHistory implements JobHistory {
  /** The status of a job folder without {@code result.json}. */
  public static final String NO_RESULT = "NO_RESULT";

  private final TableAccess access;
  private final String workBase;

  /**
   * @param access the catalog; closed with this history
   * @param workBase the base the jobs were given with {@code --work-location}; null: the default
   *     place
   */
  public WorkLocationHistory(TableAccess access, String workBase) {
    this.access = access;
    this.workBase = workBase;
  }

  @Override
  public List<JobRecord> recent(String table, int limit) {
    Jobs jobs = jobs(table, null);
    List<JobRecord> own = new ArrayList<>();
    // newest folders first, read until enough are the table's own: another table's jobs are skipped
    jobs.folders().entrySet().stream()
        .map(folder -> new Folder(folder.getKey(), folder.getValue()))
        .sorted(
            Comparator.comparingLong(Folder::oldest)
                .reversed()
                .thenComparing(Folder::jobId, Comparator.reverseOrder()))
        .map(folder -> read(table, jobs, folder, false))
        .filter(job -> job.ownedBy(table))
        .limit(limit)
        .forEach(job -> own.add(job.record()));
    own.sort(
        Comparator.comparingLong((JobRecord r) -> r.entry().startedAtMillis())
            .reversed()
            .thenComparing(r -> r.entry().jobId(), Comparator.reverseOrder()));
    return own;
  }

  /**
   * @throws JobOfAnotherTableException when the job's stored result or plan names another table
   *     (one registered on the same location)
   * @throws StoredDocumentUnreadableException when the job's result is there but cannot be parsed
   */
  @Override
  public Optional<JobRecord> find(String table, String jobId) {
    Jobs jobs = jobs(table, jobId);
    List<FileInfo> files = jobs.folders().get(jobId);
    if (files == null) {
      return Optional.empty();
    }
    StoredJob job = read(table, jobs, new Folder(jobId, files), true);
    if (!job.ownedBy(table)) {
      throw new JobOfAnotherTableException(jobId, job.owner(), table, job.ownerDocument());
    }
    if (job.unreadable() != null) {
      throw job.unreadable();
    }
    return Optional.of(job.record());
  }

  @Override
  public String where(String table) {
    return "the work locations under " + workRoot(access.loadTable(table), table);
  }

  @Override
  public void close() {
    access.close();
  }

  /**
   * The job folders under the table's work root, each with its files; only {@code onlyJob}'s when
   * not null.
   */
  private Jobs jobs(String tableName, String onlyJob) {
    Table table = access.loadTable(tableName);
    FileIO io = table.io();
    if (!(io instanceof SupportsPrefixOperations listing)) {
      throw new InvalidJobInputException(
          "The table's FileIO "
              + io.getClass().getName()
              + " cannot list files, so the jobs' work locations cannot"
              + " be found; read the deployed job log with --lease-table instead");
    }
    String root = workRoot(table, tableName);
    String normalizedRoot = FileLocations.normalized(root) + "/";
    String prefix = FileLocations.child(root, onlyJob == null ? "" : onlyJob + "/");
    Map<String, List<FileInfo>> folders = new LinkedHashMap<>();
    for (FileInfo file : listed(listing, prefix)) {
      String normalized = FileLocations.normalized(file.location());
      if (!normalized.startsWith(normalizedRoot)) {
        continue;
      }
      String relative = normalized.substring(normalizedRoot.length());
      int slash = relative.indexOf('/');
      if (slash > 0) { // a file directly in the root belongs to no job
        folders.computeIfAbsent(relative.substring(0, slash), id -> new ArrayList<>()).add(file);
      }
    }
    return new Jobs(root, io, folders);
  }

  /**
   * The files under {@code prefix}; none when it does not exist (HadoopFileIO refuses to list a
   * missing folder).
   */
  private static List<FileInfo> listed(SupportsPrefixOperations io, String prefix) {
    List<FileInfo> files = new ArrayList<>();
    try {
      io.listPrefix(prefix).forEach(files::add);
    } catch (NotFoundException missing) {
      return List.of();
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof FileNotFoundException) {
        return List.of();
      }
      throw e;
    }
    return files;
  }

  /** The folder holding every job's work location: WorkLocation's rule without the job id. */
  private String workRoot(Table table, String tableName) {
    String withJob = WorkLocation.of(workBase, table.location(), tableName, "x").jobDirectory();
    return withJob.substring(0, withJob.length() - 2);
  }

  /**
   * The job in {@code folder}, with the table its stored result (else its plan) names: null when
   * neither can be read, and then it is listed under every table sharing the location, since it
   * cannot be told apart.
   */
  private StoredJob read(String tableName, Jobs jobs, Folder folder, boolean keepWholeResult) {
    WorkLocation work = new WorkLocation(FileLocations.child(jobs.root(), folder.jobId()));
    JobStore store = new JobStore(jobs.io());
    String resultFile = FileLocations.normalized(work.jobResult());
    Optional<FileInfo> resultInfo =
        folder.files().stream()
            .filter(f -> FileLocations.normalized(f.location()).equals(resultFile))
            .findFirst();
    if (resultInfo.isEmpty()) {
      JobRecord record =
          new JobRecord(
              new JobLogEntry(
                  tableName,
                  folder.jobId(),
                  folder.oldest(),
                  NO_RESULT,
                  Map.of(),
                  List.of(),
                  folder.newest() - folder.oldest(),
                  "no result.json yet: the job is running, or stopped before its commit",
                  null,
                  null,
                  null),
              null);
      return new StoredJob(record, plannedTable(store, work), "its plan at " + work.plan(), null);
    }
    JobResult result;
    PlanIntegrityException unreadable = null;
    try {
      result = store.readDocument(work.jobResult(), JobResult.class).orElse(null);
    } catch (PlanIntegrityException e) {
      result = null;
      unreadable = e;
    }
    long ended = resultInfo.get().createdAtMillis();
    if (result == null || result.status() == null) {
      String reason =
          unreadable != null ? unreadable.getMessage() : "cannot read " + work.jobResult();
      JobRecord record =
          new JobRecord(
              new JobLogEntry(
                  tableName,
                  folder.jobId(),
                  folder.oldest(),
                  "UNREADABLE",
                  Map.of(),
                  List.of(),
                  ended - folder.oldest(),
                  reason,
                  null,
                  null,
                  null),
              null);
      return new StoredJob(
          record, plannedTable(store, work), "its plan at " + work.plan(), unreadable);
    }
    // a job that planned nothing left only its result: it started its duration before the result
    // was written
    long started = Math.min(folder.oldest(), ended - result.durationMillis());
    JobRecord record =
        new JobRecord(
            JobLogEntry.of(
                result.summary(work.jobResult()), Math.max(0, started), ended - started, null),
            keepWholeResult ? result : null);
    return new StoredJob(record, result.table(), "its result at " + work.jobResult(), null);
  }

  /**
   * The table the job's stored plan names; null without a readable plan (a job stopped before
   * planning).
   */
  private static String plannedTable(JobStore store, WorkLocation work) {
    try {
      return store.readDocument(work.plan(), PlannedFor.class).map(PlannedFor::table).orElse(null);
    } catch (PlanIntegrityException unreadable) {
      return null;
    }
  }

  /**
   * The one field of a plan read here: the rest (every group's entry) is not needed to tell its
   * table.
   */
  private record PlannedFor(String table) {}

  /**
   * A job folder as read: its record, the table its stored documents name ({@code owner}, null when
   * unknown) and which document says so, and the failure to parse its result, if any.
   */
  private record StoredJob(
      JobRecord record, String owner, String ownerDocument, PlanIntegrityException unreadable) {
    boolean ownedBy(String table) {
      return owner == null || owner.equals(table);
    }
  }

  private record Jobs(String root, FileIO io, Map<String, List<FileInfo>> folders) {}

  private record Folder(String jobId, List<FileInfo> files) {
    long oldest() {
      return files.stream().mapToLong(FileInfo::createdAtMillis).min().orElse(0);
    }

    long newest() {
      return files.stream().mapToLong(FileInfo::createdAtMillis).max().orElse(0);
    }
  }
}
